"""The one compiled part: an optional directory-listing helper for the exposure walk.

Everything else is in pyproject.toml. Without a C compiler the build skips the helper
(``optional=True``) and the walk lists directories with ``os.scandir`` instead: the same
answers, more slowly.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "localfs_explorer._listing",
            sources=["localfs_explorer/_listing.c"],
            optional=True,
        )
    ]
)
