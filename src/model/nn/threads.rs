//! Scoring many items on the two cores of the machine rulelens is tuned for, with
//! cancellation.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How many items [`on_two_threads`] takes at a time: a corpus's lines, each cheap to score,
/// between two polls of the cancellation.
const LINES_AT_A_TIME: usize = 256;

/// `score` of every item, in order, on this thread and one more (scoring a corpus with a
/// [`FaRnnScorer`] on the two cores of the machine this is tuned for), in chunks of 256
/// items ([`on_two_threads_in_chunks`]). `None` when cancelled.
///
/// [`FaRnnScorer`]: crate::model::FaRnnScorer
pub fn on_two_threads<T: Sync, R: Send>(
    items: &[T],
    score: &(dyn Fn(&T) -> R + Sync),
    cancelled: &dyn Fn() -> bool,
) -> Option<Vec<R>> {
    on_two_threads_in_chunks(items, LINES_AT_A_TIME, score, cancelled)
}

/// `score` of every item, in order, on this thread and one more, each taking the next
/// `chunk` items not yet taken, so that items of unequal cost (batches sorted by length)
/// balance; this thread polls `cancelled` before each of its chunks and tells the other.
/// `None` when cancelled.
pub fn on_two_threads_in_chunks<T: Sync, R: Send>(
    items: &[T],
    chunk: usize,
    score: &(dyn Fn(&T) -> R + Sync),
    cancelled: &dyn Fn() -> bool,
) -> Option<Vec<R>> {
    let chunks: Vec<&[T]> = items.chunks(chunk.max(1)).collect();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // The chunks one thread scored, each with its number, until none is left; `None` once
    // `poll` says stop.
    let run = |poll: &dyn Fn() -> bool| -> Option<Vec<(usize, Vec<R>)>> {
        let mut done = Vec::new();
        loop {
            if poll() {
                return None;
            }
            let c = next.fetch_add(1, Ordering::Relaxed);
            let Some(items) = chunks.get(c) else {
                return Some(done);
            };
            done.push((c, items.iter().map(score).collect()));
        }
    };
    let (mine, theirs) = std::thread::scope(|scope| {
        let other = scope.spawn(|| run(&|| stop.load(Ordering::Relaxed)));
        let mine = run(&|| {
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
    let mut scored = mine?;
    scored.extend(theirs?);
    scored.sort_unstable_by_key(|(c, _)| *c);
    let out = scored.into_iter().flat_map(|(_, scores)| scores).collect();
    (!cancelled()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_scored_once_in_order_and_cancellation_stops_it() {
        let items: Vec<usize> = (0..1000).collect();
        for chunk in [0, 1, 7, 256, 5000] {
            let calls = AtomicUsize::new(0);
            let scored = on_two_threads_in_chunks(
                &items,
                chunk,
                &|&i| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    2 * i
                },
                &|| false,
            );
            assert_eq!(scored, Some(items.iter().map(|i| 2 * i).collect()));
            assert_eq!(calls.into_inner(), items.len());
        }
        assert_eq!(on_two_threads(&items, &|&i| i, &|| true), None);
        assert_eq!(
            on_two_threads(&[] as &[usize], &|&i| i, &|| false),
            Some(vec![])
        );
    }
}
