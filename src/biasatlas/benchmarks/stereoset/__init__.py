"""StereoSet (Nadeem, Bethke & Reddy, ACL 2021): stereotype score, language-model score and ICAT.

:mod:`.data` reads the two splits, :mod:`.evaluation` aggregates sentence scores exactly as the
original ``evaluation.py``.
"""
