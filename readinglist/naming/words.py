"""The word lists the naming heuristics use: the knowledge, kept apart from the rules.

Extend a list when a new kind of abstract is misread; do not special-case a paper in
the rules. Every list is a ``frozenset`` of lower-case words written as white-space
separated text (:func:`word_list`). Sources: the lists were built by reading
conference abstracts (ICML, NeurIPS, ACL); :data:`FIELD_TERMS` holds the
abbreviations that are common in machine learning, vision and language papers.
Imports only the standard library.
"""

from __future__ import annotations

import re


def word_list(text: str) -> frozenset[str]:
    """Return the words of ``text`` (split on white space) as a frozenset. Raises nothing."""
    return frozenset(text.split())


#: Abbreviations of a field's terms: an acronym in this list (or its plural) is
#: never a contribution name, e.g. "large language models (LLMs)".
FIELD_TERMS: frozenset[str] = word_list(
    """
    ai agi ml dl rl nlp cv ir llm mllm vlm lvlm lm plm slm nn dnn cnn rnn gnn ann snn
    mlp lstm gru gan vae vit sgd gd adam dp ldp cot rlhf rlvr dpo ppo sft icl rag asr
    tts sota api gpu cpu tpu fpga pde ode sde mdp pomdp kl mse mae rmse iou fid auc roc
    qa vqa ner mt ocr pos 2d 3d 4d iid ood id kg gp bo mcmc em svm pca ica hmm crf nerf
    3dgs moe lora peft ssl uda da fl ddpm sde t2i t2v i2v vla mllms us eu uk usa ieee
    acm arxiv github url urls doi pdf html json csv ui ux io kd mbrl marl irl ssl nas
    hpo automl xai sq pac erm tl mtl ctr cf ts seg det
    """
)

#: Words that are never a name, however they are capitalised ("We", "This").
STOP_NAMES: frozenset[str] = word_list(
    """
    we our us it its they their this that these those the a an here there in on to for
    of and or but with by from as at via into such both each all any some one two three
    four five several many most first second third new novel however moreover
    furthermore finally then thus therefore specifically additionally instead also
    further extensive experiments experimental results code data project page paper work
    method methods approach model models i ii iii iv v vi table figure section appendix
    github
    """
)

#: Words that open a title but are not the name of a contribution ("Position: ...").
TITLE_PREFIX_STOP: frozenset[str] = word_list(
    """
    position survey review tutorial editorial commentary perspective perspectives
    overview keynote introduction abstract erratum correction corrigendum retraction
    addendum extended revisiting rethinking towards toward beyond why how what when
    where who which invited discussion reply response comment note short demo
    """
)

#: Suffixes that make an adjective out of a name ("DiT-based"): never a name.
ADJECTIVE_SUFFIX = re.compile(
    r"-(?:based|like|aware|free|guided|driven|style|level|wise|specific|agnostic|"
    r"conditioned|augmented|enhanced|powered|informed|centric|oriented|efficient|"
    r"scale|sized|only|type|dependent|invariant|equivariant|tuned|generated|"
    r"assisted|inspired|friendly|compatible|ready|grounded|centered)$",
    re.IGNORECASE,
)

#: Head nouns after a capitalised name ("the Adaptive Safe Context Learning framework").
HEAD_NOUNS: frozenset[str] = word_list(
    """
    framework method model module strategy algorithm benchmark dataset approach
    architecture system loss mechanism technique paradigm library toolkit toolbox
    environment agent pipeline network metric attack defense defence suite platform
    objective layer scheme procedure protocol estimator optimizer regularizer corpus
    simulator family engine policy planner solver language tool testbed leaderboard
    """
)

#: Verbs announcing a contribution ("we propose X"), priority 1 for a title phrase.
PROPOSE_VERBS = word_list(
    """
    propose introduce present develop design devise build construct create release curate
    contribute unveil offer describe
    """
)

#: Verbs stating a study ("we study X"), priority 2, used only for a title phrase.
STUDY_VERBS = word_list(
    """
    study investigate analyze analyse examine explore consider address tackle give provide
    derive characterize characterise revisit establish formulate
    """
)

#: Adverbs skipped between the subject and its verb ("we also propose").
ADVERBS = word_list(
    """
    also further then first now here hence therefore thus additionally finally newly
    subsequently instead next jointly moreover furthermore accordingly consequently
    specifically concretely secondly lastly thereby ultimately
    """
)

#: Adjectives dropped from description phrases in titles (marketing, not content).
HYPE = word_list("novel new innovative powerful")

#: Lower-case words allowed inside a capitalised name ("Learning of Graphs").
CONNECTORS = word_list(
    """
    of for with and in on via to the from over under by a an as at
    """
)

#: Words that neither end a title nor make a name on their own.
FUNCTION_WORDS = word_list(
    """
    the a an of and or to in for with we that which on by from is are as at via our its
    their this these be can into using based than but not has have was were
    """
)

#: Abbreviations whose period does not end a sentence ("e.g.", "et al.").
ABBREVIATIONS = word_list(
    """
    e.g i.e a.k.a w.r.t et al etc vs cf fig figs eq eqs sec no approx resp dr mr ms prof
    st viz
    """
)

#: Verbs that may open a sentence as a gerund announcing a name ("Introducing X, ...").
ANNOUNCING = word_list("introduce present propose")

#: Words after which a name has ended ("X, which ...", "X to ...").
BOUNDARY_WORDS = word_list(
    """
    which that to for as and where whose with in on from via by using is are was were
    """
)

#: Words opening a relative clause, where a description phrase may be cut.
RELATIVE_WORDS = word_list("that which where who whose while whereas")

#: Prepositions before which a long description phrase is cut.
CUT_PREPOSITIONS = word_list(
    "as by using via through based for in on with from to under over across into"
)
