"""The compiler's lowering model (filled below)."""
