"""The site layer: the MkDocs hooks (the one path from results/ to the site), ``llmbench site build`` and the
``llmbench site`` commands. The top of the house: it may read every layer below, and nothing reads it but
``bench/cli.py``, which mounts the commands (tests/test_architecture.py checks it).
"""
