"""DiscrimEval (Tamkin et al. 2023, "Evaluating and Mitigating Discrimination in Language Model Decisions").

``SPEC`` (:mod:`.spec`) is the benchmark as the registry and the report see it: :mod:`.data` reads the
explicit set, :mod:`.benchmark` builds the prompts (``--chat-template``) and asks P(yes/Yes/no/No),
:mod:`.analysis` turns them into logit p(yes) and the mixed-effects discrimination scores, and
:mod:`.summary` / :mod:`.view` are what is written and shown.
"""

from .benchmark import DiscrimEval
from .spec import SPEC

__all__ = ["SPEC", "DiscrimEval"]
