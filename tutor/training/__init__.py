"""The dashboard's training runs and sampling, off the UI thread and free of Textual."""
