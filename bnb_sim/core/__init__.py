"""The core layer: what every game and every shared layer may import (no game, no CLI).

Kept free of imports so that ``import bnb_sim.core.<module>`` loads only that module.
"""
