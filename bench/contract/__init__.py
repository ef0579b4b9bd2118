"""The result-file contract: schema, registries, reading/checking/writing result files, run identity.

site_gen reads only this package (and ``bench.errors``) of bench.
"""
