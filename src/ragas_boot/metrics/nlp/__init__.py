"""The NLP metrics (no judges): BLEU, ROUGE, chrF/chrF++ and string similarity.

Scores come from sacrebleu, rouge-score and rapidfuzz (the ``[nlp]`` extra), imported when a
score is first computed.
"""
