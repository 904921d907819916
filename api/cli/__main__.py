"""`python -m api.cli`: the `tablebook` command."""

from api.cli import main

main()
