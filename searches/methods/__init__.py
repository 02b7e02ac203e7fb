"""The search methods of `solve --method`, one module each (`searches.registry`, docs/searches.md)."""
