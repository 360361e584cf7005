"""The tutor command and its subcommands: argument parsing and printing, nothing the app needs."""
