//! Scoring many items on the two cores of the machine rulelens is tuned for, with
//! cancellation.

use std::sync::atomic::{AtomicBool, Ordering};

/// `score` of every item, in order, the items split between this thread and one more
/// (scoring a corpus with a [`FaRnnScorer`] on the two cores of the machine this is tuned for);
/// this thread polls `cancelled` every 256 items and tells the other. `None` when cancelled.
pub fn on_two_threads<T: Sync, R: Send>(
    items: &[T],
    score: &(dyn Fn(&T) -> R + Sync),
    cancelled: &dyn Fn() -> bool,
) -> Option<Vec<R>> {
    let stop = AtomicBool::new(false);
    let run = |items: &[T], poll: &dyn Fn() -> bool| -> Option<Vec<R>> {
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            if i % 256 == 0 && poll() {
                return None;
            }
            out.push(score(item));
        }
        Some(out)
    };
    let (first, second) = items.split_at(items.len() / 2);
    let (mine, theirs) = std::thread::scope(|scope| {
        let other = scope.spawn(|| run(second, &|| stop.load(Ordering::Relaxed)));
        let mine = run(first, &|| {
            let now = cancelled();
            stop.store(now, Ordering::Relaxed);
            now
        });
        stop.store(mine.is_none(), Ordering::Relaxed);
        // A panic in the other thread is the scorer's: raise it here.
        (
            mine,
            other
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        )
    });
    let mut out = mine?;
    out.extend(theirs?);
    (!cancelled()).then_some(out)
}
