//! Counters: what a run did, for `summary.json` and the progress line.

use std::collections::BTreeMap;

/// Event counts by kind and wall time of a run.
///
/// Kinds are registered once ([`Counters::slot`]) and counted by slot on the hot path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counters {
    labels: Vec<&'static str>,
    counts: Vec<u64>,
    seconds: BTreeMap<&'static str, f64>,
    /// All processed events.
    pub events: u64,
    /// Wall-clock seconds spent in the event loop.
    pub wall_seconds: f64,
    /// Wall-clock seconds spent re-certifying contact pairs after kicks (profiled runs only).
    pub rescheduling_seconds: f64,
}

impl Counters {
    /// The slot counting events labelled `label` (registered on first use).
    pub fn slot(&mut self, label: &'static str) -> usize {
        if let Some(k) = self.labels.iter().position(|l| *l == label) {
            return k;
        }
        self.labels.push(label);
        self.counts.push(0);
        self.labels.len() - 1
    }

    /// Counts one event in `slot`.
    #[inline]
    pub fn count(&mut self, slot: usize) {
        self.events += 1;
        self.counts[slot] += 1;
    }

    /// Adds wall time to events labelled `label` (profiled runs only).
    pub fn add_seconds(&mut self, label: &'static str, seconds: f64) {
        *self.seconds.entry(label).or_insert(0.0) += seconds;
    }

    /// Wall seconds by event label, sorted by label (empty unless the run was profiled).
    pub fn seconds_by_kind(&self) -> BTreeMap<&'static str, f64> {
        self.seconds.clone()
    }

    /// Processed events by label, sorted by label.
    pub fn events_by_kind(&self) -> BTreeMap<&'static str, u64> {
        self.labels.iter().copied().zip(self.counts.iter().copied()).collect()
    }
}

/// [`Counters`] as numbers with their labels, for a checkpoint ([`Counters::tallies`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CounterTallies {
    labels: Vec<String>,
    counts: Vec<u64>,
    seconds: Vec<(String, f64)>,
    events: u64,
    wall_seconds: f64,
    rescheduling_seconds: f64,
}

impl Counters {
    /// Everything counted so far, for a checkpoint.
    pub fn tallies(&self) -> CounterTallies {
        CounterTallies {
            labels: self.labels.iter().map(|l| l.to_string()).collect(),
            counts: self.counts.clone(),
            seconds: self.seconds.iter().map(|(l, s)| (l.to_string(), *s)).collect(),
            events: self.events,
            wall_seconds: self.wall_seconds,
            rescheduling_seconds: self.rescheduling_seconds,
        }
    }

    /// Puts back what [`tallies`](Self::tallies) took, into counters whose slots were registered
    /// in the same order (a run rebuilt from the same scene); the error says what differs.
    pub fn restore_tallies(&mut self, tallies: CounterTallies) -> Result<(), String> {
        if tallies.labels.len() != self.labels.len() || tallies.labels.iter().zip(&self.labels).any(|(a, b)| a != b) {
            return Err(format!("event kinds {:?} saved, {:?} in the scene", tallies.labels, self.labels));
        }
        self.counts = tallies.counts;
        // a profiled run's labels are its event kinds' (and "force"): static names of this build,
        // so a label seen here is one of them; an unknown one is kept under a leaked copy
        self.seconds = tallies
            .seconds
            .into_iter()
            .map(|(label, s)| {
                let known = self.labels.iter().copied().chain(["force"]).find(|l| *l == label);
                (known.unwrap_or_else(|| Box::leak(label.into_boxed_str())), s)
            })
            .collect();
        self.events = tallies.events;
        self.wall_seconds = tallies.wall_seconds;
        self.rescheduling_seconds = tallies.rescheduling_seconds;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_label() {
        let mut c = Counters::default();
        let a = c.slot("hinge");
        let b = c.slot("frame");
        assert_eq!(c.slot("hinge"), a);
        c.count(a);
        c.count(a);
        c.count(b);
        assert_eq!(c.events, 3);
        assert_eq!(c.events_by_kind().into_iter().collect::<Vec<_>>(), vec![("frame", 1), ("hinge", 2)]);
    }
}
