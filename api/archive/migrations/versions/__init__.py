"""One module per migration, in order."""
