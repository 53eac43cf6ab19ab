"""One module per API; each handler reads top to bottom as the data flow."""
