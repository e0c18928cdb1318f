"""``python -m bnb_sim ...`` runs the ``bnb`` command line (the same as the ``bnb`` script)."""

from bnb_sim.cli import main

if __name__ == "__main__":
    main()
