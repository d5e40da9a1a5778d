//! The engine's "stop": what the suggestion engine and its producers poll between units of
//! their work.

/// A caller's "stop": polled between units of the engine's work (a line read for
/// induction, a candidate counted, a measurement), so that a superseded save's suggestions
/// stop within one unit, however large the corpora.
#[derive(Clone, Copy)]
pub(super) struct Cancel<'a>(pub(super) &'a dyn Fn() -> bool);

impl Cancel<'_> {
    /// Never stops: `rulelens suggest` and the greedy rounds of [`refine`](super::refine).
    pub(super) const NEVER: Cancel<'static> = Cancel(&|| false);

    /// `None` once the caller says stop, for `?` to end the work.
    pub(super) fn check(self) -> Option<()> {
        (!(self.0)()).then_some(())
    }
}
