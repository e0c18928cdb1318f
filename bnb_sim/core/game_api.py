"""The step-by-step game every registered game offers (``bnb_sim.new_game(game=NAME)``).

A small typed protocol in the spirit of OpenSpiel's ``State`` and Pgx's ``Env``: the seat to
move, its legal actions (plain ints, with a mask), applying one, asking the seat's policy for
its decision, and at the end the result rows. Actions are game-specific ints;
``action_to_string`` says what one means now. The Builders & Biomes ``Game`` and the Heroes
of the Village ``HotvGame`` both satisfy it (``tests/test_game_step_api.py`` checks), and
shared code that plays games one decision at a time (playthroughs, the contract tests) uses
only these names. :class:`StepGame` is the part of it that every registered game's
``new_game`` offers, a game added through the protocol included.

No game, click or pandas type appears here: ``result(as_frame=True)`` returns a DataFrame,
typed ``Any`` so that importing this module stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

#: The members of :class:`Game`, for checks at run time (``isinstance`` of a
#: ``runtime_checkable`` protocol looks at names only, not at signatures).
GAME_METHODS = (
    "legal_actions",
    "legal_action_mask",
    "apply_action",
    "is_over",
    "result",
    "result_frames",
    "action_to_string",
    "policy_action",
    "play",
    "clone",
    "observation",
    "events",
)
GAME_PROPERTIES = ("n_players", "current_seat", "phase")
#: The members of :class:`StepGame`: what every registered game's step-by-step game has.
STEP_METHODS = ("legal_actions", "apply_action", "is_over", "result", "policy_action", "play",
                "events")  # fmt: skip
STEP_PROPERTIES = ("current_seat",)


@runtime_checkable
class StepGame(Protocol):
    """The least a game's ``new_game(config, game_index)`` returns, and all that the shared
    code that plays any game one decision at a time uses (``bnb play`` of a game without a
    transcript of its own, the contract tests): the seat to move, its legal actions,
    applying one or its policy's choice, the end, the result rows and the event log.
    :class:`Game` (the built-in games) has these names and more."""

    @property
    def current_seat(self) -> int:
        """The seat that decides now (meaningless once the game is over)."""
        ...

    def legal_actions(self) -> list[int]:
        """The legal actions of the current seat, ascending (none once over)."""
        ...

    def apply_action(self, action: int) -> list[dict[str, Any]]:
        """Carry out a legal action of the current seat; the events it caused."""
        ...

    def is_over(self) -> bool: ...

    def result(self) -> Any:
        """One dict per seat (``seat`` and ``won`` among the keys); only when over."""
        ...

    def policy_action(self) -> int:
        """The decision of the current seat's policy (consuming its random stream, as a batch
        run does)."""
        ...

    def play(self) -> StepGame:
        """Let the policies play to the end; returns the game."""
        ...

    def events(self) -> list[str]:
        """The game so far as readable lines."""
        ...


@runtime_checkable
class Game(StepGame, Protocol):
    """A game in progress, one decision at a time: :class:`StepGame` and more (the built-in
    games: the mask, action texts, observations, clones, the batch's result frames).

    ``game_index`` and ``history`` (``(seat, phase code, action)`` per decision) are plain
    attributes; ``log`` holds the events so far as dicts (``event``, ``seat``, ``text``...).
    """

    game_index: int
    history: list[tuple[int, int, int]]
    log: list[dict[str, Any]]

    @property
    def n_players(self) -> int:
        """Seats at the table."""
        ...

    @property
    def phase(self) -> str:
        """The kind of decision the seat faces (``"over"`` at the end)."""
        ...

    def legal_action_mask(self) -> np.ndarray:
        """A bool array over every action id: which are legal now."""
        ...

    def result(self, as_frame: bool = False) -> Any:
        """One dict per seat (``won`` among the keys), or the same rows as a DataFrame with
        the columns of the game's run files; only when over."""
        ...

    def result_frames(self) -> tuple[Any, Any]:
        """``(seats, games)``: the game's rows of a batch run's two tables, as DataFrames
        (equal to that game index of a batch with the same seed and options)."""
        ...

    def action_to_string(self, action: int) -> str:
        """What ``action`` means in the current state."""
        ...

    def play(self, max_decisions: int = 100_000) -> Game:
        """Let the policies play to the end; returns the game."""
        ...

    def clone(self) -> Game:
        """An independent copy that goes on exactly alike."""
        ...

    def observation(self, seat: int | None = None) -> np.ndarray:
        """What ``seat`` (default: the current seat) may see, as a flat array."""
        ...
