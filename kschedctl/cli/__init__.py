"""The command line: the only package that imports typer. Each command is a thin module."""
