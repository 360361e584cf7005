"""The lesson-format guide (lessons.md), shipped inside the package as tutor.docs so an installed
tutor can show it with `tutor lessons docs`."""
