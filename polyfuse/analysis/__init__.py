"""Scop -> facts, via isl; never changes a Scop: dependences and the dataflow check, schedule
verification, bounds proofs, memory-traffic estimates.  Imports only model.
"""
