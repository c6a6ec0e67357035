"""Dashboard components: each owns its layout (``layout(...)``) and callbacks (``register(app, ...)``)."""
