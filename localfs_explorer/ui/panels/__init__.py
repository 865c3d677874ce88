"""The Explorer's panels, one module each; ``ui/app.py`` lists them in ``PANELS``."""
