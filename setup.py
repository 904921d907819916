"""The compiled parts of the package: the Schnapsen review's search (`projections/games/schnapsen/_fastsolver.c`)
and the Seven and a Half review's expectimax (`projections/games/seven_and_a_half/_fastreview.c`).

Everything else is declared in pyproject.toml; an extension module needs `setup()` with setuptools before 74.
The extensions are optional: where no C compiler is found the install goes on, and the reviews search in
Python (`_solver.COMPILED`, `seven_and_a_half.review.COMPILED` are False), giving the same figures more slowly.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "projections.games.schnapsen._fastsolver",
            sources=["projections/games/schnapsen/_fastsolver.c"],
            depends=["projections/games/schnapsen/_fasttable.h"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
        Extension(
            "projections.games.seven_and_a_half._fastreview",
            sources=["projections/games/seven_and_a_half/_fastreview.c"],
            depends=["projections/games/seven_and_a_half/_fastreview_search.h"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
    ]
)
