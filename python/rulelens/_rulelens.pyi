"""Type stubs of the extension module; the public API is ``rulelens``."""

from os import PathLike
from typing import Any

class RulesError(ValueError):
    """A rules file with errors."""

    diagnostics: list[Diagnostic]

class Diagnostic:
    code: str
    severity: str
    message: str
    line: int
    column: int
    help: str | None

class Rule:
    id: int
    name: str
    label: str
    label_index: int
    line: int
    regex: str
    formula: bool

class Classification:
    label: str | None
    rule: int | None
    fired: list[int]

class Span:
    start: int
    end: int
    text: str

class PatternScore:
    pattern: str
    score: float
    span: Span | None

class NgramContribution:
    span: Span
    contribution: float
    without: float

class NetworkView:
    prediction_from_words: bool
    ngram_regression: bool
    top_patterns: list[PatternScore]
    ngrams: list[NgramContribution]
    max_ngram_len: int
    ngram_len_capped: bool

class PatternContribution:
    pattern: str
    score: float
    delta: float
    span: Span | None

class SuffixPart:
    first_token: int
    span: Span
    score: float

class LogitParts:
    label: str
    logit: float
    sum: float
    strongest: list[SuffixPart]
    rest: tuple[int, float]

class MvmaView:
    logits: list[LogitParts]
    n_tokens: int
    truncated: bool

class Explanation:
    text: str
    prediction: str
    @property
    def probabilities(self) -> dict[str, float]: ...
    tokens: list[Span]
    network: NetworkView | None
    patterns: list[PatternContribution] | None
    mvma: MvmaView | None

class Rules:
    def __init__(self, text: str, base_dir: str | PathLike[str] | None = None) -> None: ...
    @staticmethod
    def from_file(path: str | PathLike[str]) -> Rules: ...
    @property
    def text(self) -> str: ...
    @property
    def diagnostics(self) -> list[Diagnostic]: ...
    @property
    def labels(self) -> list[str]: ...
    @property
    def default(self) -> str | None: ...
    @property
    def rules(self) -> list[Rule]: ...
    def classify(self, texts: list[str]) -> list[Classification]: ...
    @property
    def n_rules(self) -> int: ...
    def _label_matrix_into(self, texts: list[str], out: Any) -> None: ...
    def _analysis(
        self, texts: list[str], labels: list[str | None]
    ) -> dict[str, list[object]]: ...
    def _label_model(
        self, texts: list[str], labels: list[str | None]
    ) -> tuple[bytes, int, int, float | None]: ...

class Model:
    @staticmethod
    def load(dir: str | PathLike[str]) -> Model: ...
    @staticmethod
    def _from_bytes(manifest: bytes, weights: bytes) -> Model: ...
    @property
    def labels(self) -> list[str]: ...
    @property
    def kind(self) -> str: ...
    @property
    def rules_text(self) -> str: ...
    def _probabilities(self, texts: list[str]) -> tuple[bytes, int, int]: ...
    def _explain(self, text: str) -> Explanation: ...

def _training_defaults() -> str: ...
def _train(
    text: str,
    base_dir: str | PathLike[str] | None,
    train: list[tuple[str, str | None]],
    dev: list[tuple[str, str | None]],
    settings: str,
    out: str | PathLike[str],
    progress: object | None = None,
) -> Model: ...
