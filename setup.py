"""The one compiled part of the package: the Schnapsen review's search (`projections/games/schnapsen/_fastsolver.c`).

Everything else is declared in pyproject.toml; an extension module needs `setup()` with setuptools before 74.
The extension is optional: where no C compiler is found the install goes on, and the review searches in
Python (`_solver.COMPILED` is False), giving the same figures more slowly.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "projections.games.schnapsen._fastsolver",
            sources=["projections/games/schnapsen/_fastsolver.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
