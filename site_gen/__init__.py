"""llmbench downstream: results/ -> DuckDB -> Markdown pages with Altair charts -> MkDocs site."""
