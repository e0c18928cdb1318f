"""Jitted kernels and the Builders & Biomes rules engine (plain numpy arrays in, arrays out).

Everything under this package is nopython code or a thin wrapper around it; importing it
imports numba. The Python façade that validates input lives one level up (``bnb_sim.api``).
"""
