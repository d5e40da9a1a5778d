//! The networks the save jobs share between projects, by memory key (`jobs.rs`).
//!
//! A [`Registry`] holds networks by memory key (which names the settings, so the keys of two
//! roles never meet): those ready, which some project holds (kept as weak references, so a
//! network no project holds any more is dropped), and those being made, whose maker reports
//! through a [`Slot`] when it is done. A job that [claims](Registry::claim) a key gets the
//! ready network, waits for the one being made, or is told to make it itself. [`Networks`]
//! holds the registry, and the permit that lets one training run at a time.

use super::yardstick;
use crate::ide::TrainedNetwork;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::{Semaphore, watch};

/// A finished network, or `None` when making it failed or was given up.
type Finished<T> = Option<Option<Arc<T>>>;

/// The networks of all projects, by memory key: those ready (held by some project) and those
/// being made.
pub(super) struct Registry<T> {
    ready: Mutex<HashMap<String, Weak<T>>>,
    pending: Mutex<HashMap<String, watch::Receiver<Finished<T>>>>,
}

impl<T> Default for Registry<T> {
    fn default() -> Registry<T> {
        Registry {
            ready: Mutex::default(),
            pending: Mutex::default(),
        }
    }
}

/// Every network of the server, and the permit that lets one training run at a time.
pub(super) struct Networks {
    pub(super) registry: Registry<TrainedNetwork>,
    pub(super) training: Semaphore,
    /// The black-box yardsticks training beside the networks (`yardstick.rs`).
    pub(super) yardsticks: Arc<yardstick::InFlight>,
}

impl Default for Networks {
    fn default() -> Networks {
        Networks {
            registry: Registry::default(),
            training: Semaphore::new(1),
            yardsticks: Arc::default(),
        }
    }
}

/// What [`Registry::claim`] found.
pub(super) enum Claim<'a, T> {
    Ready(Arc<T>),
    /// Someone is making it; the receiver hears when they are done.
    Pending(watch::Receiver<Finished<T>>),
    /// Nobody is: the caller makes it and reports through the slot.
    Mine(Slot<'a, T>),
}

/// A claim to make one network, which tells the waiting projects when it is done (and, if
/// it is dropped unfinished, that it gave up).
pub(super) struct Slot<'a, T> {
    registry: &'a Registry<T>,
    key: String,
    done: watch::Sender<Finished<T>>,
}

impl<T> Slot<'_, T> {
    pub(super) fn finish(self, made: Option<Arc<T>>) -> Option<Arc<T>> {
        if let Some(model) = &made {
            lock(&self.registry.ready).insert(self.key.clone(), Arc::downgrade(model));
        }
        let _ = self.done.send(Some(made.clone()));
        made
    }
}

impl<T> Drop for Slot<'_, T> {
    fn drop(&mut self) {
        lock(&self.registry.pending).remove(&self.key);
        self.done.send_if_modified(|finished| {
            let unfinished = finished.is_none();
            if unfinished {
                *finished = Some(None);
            }
            unfinished
        });
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<T> Registry<T> {
    pub(super) fn claim(&self, key: &str) -> Claim<'_, T> {
        let mut ready = lock(&self.ready);
        ready.retain(|_, model| model.strong_count() > 0);
        if let Some(model) = ready.get(key).and_then(Weak::upgrade) {
            return Claim::Ready(model);
        }
        drop(ready);
        let mut pending = lock(&self.pending);
        if let Some(receiver) = pending.get(key) {
            return Claim::Pending(receiver.clone());
        }
        let (done, receiver) = watch::channel(None);
        pending.insert(key.to_string(), receiver);
        Claim::Mine(Slot {
            registry: self,
            key: key.to_string(),
            done,
        })
    }
}
