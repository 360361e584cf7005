"""The course as data: the lesson schema, the safe loader, the catalog, hot reload and live placeholders."""
