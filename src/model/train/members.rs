//! Training an ensemble's members side by side: each member on a thread of its own, as many
//! at once as the process has cores and the gradient memory budget holds, the rest queued.
//! The figures are those of training them one after another, since a member's training
//! reads nothing another writes: its own network, settings (seed) and random numbers. Its
//! progress is reported member by member in order, the first's as it comes and a later
//! one's held until those before it have finished, so a log reads as it did.

use crate::model::nn::network::Network;
use crate::model::train::learn::{
    DevScoring, EpochReport, LabeledSentence, MAX_TRAINING_BYTES, Schedule, TrainError,
    TrainReport, train,
};
use crate::model::train::settings::TrainingSettings;
use candle_core::Device;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// One member to train: its network (trained in place), settings and schedule.
pub(crate) struct Member<'a> {
    pub(crate) net: &'a dyn Network,
    pub(crate) settings: TrainingSettings,
    pub(crate) schedule: Schedule,
}

/// What every member trains on, and how dev is measured and where.
#[derive(Clone, Copy)]
pub(crate) struct Common<'a> {
    pub(crate) train_data: &'a [LabeledSentence],
    pub(crate) dev_data: &'a [LabeledSentence],
    pub(crate) dev_scoring: DevScoring<'a>,
    pub(crate) device: &'a Device,
}

impl Member<'_> {
    /// Trains this member on `common`'s data ([`train`]).
    fn train(
        &self,
        common: Common,
        on_epoch: &mut dyn FnMut(&EpochReport),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<TrainReport, TrainError> {
        train(
            self.net,
            common.train_data,
            common.dev_data,
            &self.settings,
            self.schedule,
            common.dev_scoring,
            common.device,
            on_epoch,
            cancelled,
        )
    }
}

/// What [`train_members`] reports, in member order.
pub(crate) enum MemberEvent<'a> {
    /// Member `index`'s reports follow.
    Starts { index: usize },
    /// A dev measurement of the member that started last.
    Epoch(&'a EpochReport),
}

/// How often the thread that waits for the members asks whether training is still wanted.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// Trains every member (see the module doc), `at_once` at a time ([`side_by_side`]), on
/// `common`'s train data, stopping each early on its dev data, and returns their reports
/// in order: the first error of a member that failed, which stops the others, else
/// [`TrainError::Cancelled`] once `cancelled` says so.
pub(crate) fn train_members(
    at_once: usize,
    members: &[Member],
    common: Common,
    on_event: &mut dyn FnMut(MemberEvent),
    cancelled: &dyn Fn() -> bool,
) -> Result<Vec<TrainReport>, TrainError> {
    if at_once <= 1 {
        let mut reports = Vec::with_capacity(members.len());
        for (index, member) in members.iter().enumerate() {
            on_event(MemberEvent::Starts { index });
            reports.push(member.train(
                common,
                &mut |report| on_event(MemberEvent::Epoch(report)),
                cancelled,
            )?);
        }
        return Ok(reports);
    }
    enum Message {
        Epoch(usize, EpochReport),
        Done(usize, Result<TrainReport, TrainError>),
    }
    let stop = AtomicBool::new(false);
    let next_member = AtomicUsize::new(0);
    let mut results: Vec<Option<Result<TrainReport, TrainError>>> =
        members.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel();
        let workers: Vec<_> = (0..at_once)
            .map(|_| {
                let sender = sender.clone();
                let (stop, next_member) = (&stop, &next_member);
                scope.spawn(move || {
                    loop {
                        let index = next_member.fetch_add(1, Ordering::Relaxed);
                        let Some(member) = members.get(index) else {
                            return;
                        };
                        let result = if stop.load(Ordering::Relaxed) {
                            Err(TrainError::Cancelled)
                        } else {
                            member.train(
                                common,
                                &mut |report| {
                                    let _ = sender.send(Message::Epoch(index, report.clone()));
                                },
                                &|| stop.load(Ordering::Relaxed),
                            )
                        };
                        if matches!(result, Err(TrainError::Tensor(_))) {
                            stop.store(true, Ordering::Relaxed);
                        }
                        let _ = sender.send(Message::Done(index, result));
                    }
                })
            })
            .collect();
        // Only the workers hold a sender now: the channel closes when the last one returns.
        drop(sender);
        let mut held: Vec<Vec<EpochReport>> = members.iter().map(|_| Vec::new()).collect();
        let mut reporting = 0;
        on_event(MemberEvent::Starts { index: 0 });
        loop {
            if cancelled() {
                stop.store(true, Ordering::Relaxed);
            }
            match receiver.recv_timeout(CANCEL_POLL) {
                Ok(Message::Epoch(index, report)) if index == reporting => {
                    on_event(MemberEvent::Epoch(&report));
                }
                Ok(Message::Epoch(index, report)) => held[index].push(report),
                Ok(Message::Done(index, result)) => {
                    results[index] = Some(result);
                    while results.get(reporting).is_some_and(Option::is_some) {
                        reporting += 1;
                        if reporting < members.len() && !stop.load(Ordering::Relaxed) {
                            on_event(MemberEvent::Starts { index: reporting });
                            for report in held[reporting].drain(..) {
                                on_event(MemberEvent::Epoch(&report));
                            }
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        // A panic in a worker is the training's: raise it here.
        for worker in workers {
            worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
    });
    let mut reports = Vec::with_capacity(members.len());
    let mut cancelled_member = false;
    for result in results {
        match result {
            Some(Ok(report)) => reports.push(report),
            Some(Err(TrainError::Cancelled)) | None => cancelled_member = true,
            Some(Err(error)) => return Err(error),
        }
    }
    if cancelled_member {
        return Err(TrainError::Cancelled);
    }
    Ok(reports)
}

/// How many members train at once: one per core the process may use (cgroup quotas and CPU
/// affinity included), no more than there are members, and only as many as hold their
/// batches' gradients within [`MAX_TRAINING_BYTES`] together (a member's batch keeps at most
/// its longest sentence × its batch size × the network's bytes per token), so that training
/// side by side uses no more memory than one network may. One on a GPU, which the members
/// would share.
pub(crate) fn side_by_side(
    members: &[Member],
    train_data: &[LabeledSentence],
    device: &Device,
) -> usize {
    if !device.is_cpu() {
        return 1;
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let longest = train_data
        .iter()
        .map(|labeled| labeled.sentence.symbols.len().max(1) as u64)
        .max()
        .unwrap_or(1);
    let batch_bytes = members
        .iter()
        .map(|member| {
            member
                .net
                .training_bytes_per_token()
                .saturating_mul(longest)
                .saturating_mul(member.settings.batch_size.max(1) as u64)
                .min(MAX_TRAINING_BYTES)
        })
        .max()
        .unwrap_or(MAX_TRAINING_BYTES)
        .max(1);
    let in_budget = usize::try_from(MAX_TRAINING_BYTES / batch_bytes).unwrap_or(usize::MAX);
    cores.min(members.len()).min(in_budget).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::train::learn::tests::network_and_data;

    /// Three members of the tests' spam filter from seeds 7, 8 and 9, trained `at_once` at a
    /// time: their reports, their trained parameters, and the events in order.
    fn trained(at_once: usize) -> (Vec<TrainReport>, Vec<Vec<f32>>, Vec<String>) {
        let built: Vec<_> = (0..3).map(|_| network_and_data()).collect();
        let data = built[0].1.clone();
        let members: Vec<Member> = built
            .iter()
            .enumerate()
            .map(|(i, (net, _))| Member {
                net,
                settings: TrainingSettings {
                    seed: 7 + i as u64,
                    epochs: 6,
                    batch_size: 2,
                    ..TrainingSettings::default()
                },
                schedule: Schedule::SETTINGS,
            })
            .collect();
        let mut events = Vec::new();
        let common = Common {
            train_data: &data,
            dev_data: &data[..3],
            dev_scoring: DevScoring::Tensors,
            device: &Device::Cpu,
        };
        let reports = train_members(
            at_once,
            &members,
            common,
            &mut |event| {
                events.push(match event {
                    MemberEvent::Starts { index } => format!("member {index}"),
                    MemberEvent::Epoch(report) => format!("epoch {}", report.epoch),
                })
            },
            &|| false,
        )
        .unwrap();
        let parameters = built
            .iter()
            .flat_map(|(net, _)| net.parameters())
            .map(|var| var.as_tensor().flatten_all().unwrap().to_vec1().unwrap())
            .collect();
        (reports, parameters, events)
    }

    #[test]
    fn side_by_side_trains_the_members_one_after_another_would() {
        let (reports, parameters, events) = trained(1);
        let (side_reports, side_parameters, side_events) = trained(3);
        let drop_seconds = |reports: &[TrainReport]| -> Vec<TrainReport> {
            reports
                .iter()
                .map(|report| TrainReport {
                    history: report
                        .history
                        .iter()
                        .map(|epoch| EpochReport {
                            seconds: 0.0,
                            ..epoch.clone()
                        })
                        .collect(),
                    ..report.clone()
                })
                .collect()
        };
        assert_eq!(drop_seconds(&side_reports), drop_seconds(&reports));
        assert_eq!(side_parameters, parameters);
        assert_eq!(side_events, events);
        // The seeds differ, so the members do: the test would see a mixed-up member.
        let losses = |report: &TrainReport| -> Vec<Option<f64>> {
            report.history.iter().map(|epoch| epoch.loss).collect()
        };
        assert_ne!(losses(&reports[0]), losses(&reports[1]));
        assert_eq!(events.iter().filter(|e| e.starts_with("member")).count(), 3);
        assert_eq!(events[0], "member 0");
        assert_eq!(events[1], "epoch 0");
    }

    #[test]
    fn a_cancelled_training_stops_every_member_side_by_side() {
        let built: Vec<_> = (0..3).map(|_| network_and_data()).collect();
        let data = built[0].1.clone();
        let members: Vec<Member> = built
            .iter()
            .map(|(net, _)| Member {
                net,
                settings: TrainingSettings::default(),
                schedule: Schedule::SETTINGS,
            })
            .collect();
        let common = Common {
            train_data: &data,
            dev_data: &data,
            dev_scoring: DevScoring::Tensors,
            device: &Device::Cpu,
        };
        let result = train_members(2, &members, common, &mut |_| {}, &|| true);
        assert!(matches!(result, Err(TrainError::Cancelled)));
    }

    #[test]
    fn members_train_side_by_side_within_the_memory_budget() {
        let built: Vec<_> = (0..4).map(|_| network_and_data()).collect();
        let data = built[0].1.clone();
        let member = |net, batch_size| Member {
            net,
            settings: TrainingSettings {
                batch_size,
                ..TrainingSettings::default()
            },
            schedule: Schedule::SETTINGS,
        };
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let small: Vec<Member> = built.iter().map(|(net, _)| member(net, 2)).collect();
        assert_eq!(side_by_side(&small, &data, &Device::Cpu), cores.min(4));
        // A batch as large as the whole budget: one member at a time.
        let longest = data.iter().map(|d| d.sentence.symbols.len()).max().unwrap() as u64;
        let per_sentence = built[0].0.training_bytes_per_token() * longest;
        let huge = (MAX_TRAINING_BYTES / per_sentence + 1) as usize;
        let large: Vec<Member> = built.iter().map(|(net, _)| member(net, huge)).collect();
        assert_eq!(side_by_side(&large, &data, &Device::Cpu), 1);
    }
}
