//! Counters: state fields that step by about the same amount every frame, coded as the
//! zigzag of their step's difference from the previous group's commonest step (see the
//! parent module).

use crate::codec::{get_varint, put_varint};

const fn field(offset: usize, width: usize) -> CounterField {
    CounterField { offset, width }
}

/// A little-endian unsigned field of the state that counts up (or down) steadily.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterField {
    pub offset: usize,
    /// 2, 4 or 8 bytes.
    pub width: usize,
}

/// The counters of [`backspin_core::State`] that advance by about the same amount every
/// frame (found on the homebrew ROMs' deltas, see `Counters`); offsets come from the layout.
pub const STATE_COUNTERS: [CounterField; 6] = {
    use backspin_core::State;
    use backspin_core::state::HwState;
    use backspin_core::state::TimerState;
    use backspin_core::state::{ApuState, SynthState};
    use std::mem::offset_of;
    let hw = offset_of!(State, hw);
    let apu = hw + offset_of!(HwState, apu);
    let synth = apu + offset_of!(ApuState, synth);
    [
        field(hw + offset_of!(HwState, m_cycles), 8),
        field(hw + offset_of!(HwState, frames), 8),
        field(
            hw + offset_of!(HwState, timer) + offset_of!(TimerState, system_counter),
            2,
        ),
        field(apu + offset_of!(ApuState, flush_clock), 4),
        field(synth + offset_of!(SynthState, offset_ticks), 4),
        field(synth + offset_of!(SynthState, head), 4),
    ]
};

/// At most this many counter fields.
pub const MAX_COUNTERS: usize = 16;

#[inline]
fn mask(width: usize) -> u64 {
    if width >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * width)) - 1
    }
}

/// The field's value (the common widths without a variable-length copy: every delta applied
/// in a seek reads and writes each counter).
#[inline]
fn read_le(bytes: &[u8], field: CounterField) -> u64 {
    let at = field.offset;
    match field.width {
        2 => u64::from(u16::from_le_bytes([bytes[at], bytes[at + 1]])),
        4 => u64::from(u32::from_le_bytes(
            bytes[at..at + 4].try_into().expect("4 bytes"),
        )),
        8 => u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes")),
        width => {
            let mut word = [0u8; 8];
            word[..width].copy_from_slice(&bytes[at..at + width]);
            u64::from_le_bytes(word)
        }
    }
}

#[inline]
fn write_le(bytes: &mut [u8], field: CounterField, value: u64) {
    let at = field.offset;
    match field.width {
        2 => bytes[at..at + 2].copy_from_slice(&(value as u16).to_le_bytes()),
        4 => bytes[at..at + 4].copy_from_slice(&(value as u32).to_le_bytes()),
        8 => bytes[at..at + 8].copy_from_slice(&value.to_le_bytes()),
        width => bytes[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]),
    }
}

/// The 8 bytes at `at` as a little-endian word, if they lie within `bytes`.
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let window: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(window))
}

/// Byte-by-byte wrapping `a - b` (no borrows between bytes), as the patches apply it: each
/// byte's top bit is set in `a` and cleared in `b` so no borrow leaves it, then fixed up.
#[inline]
fn bytewise_sub(a: u64, b: u64) -> u64 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    ((a | HIGH).wrapping_sub(b & !HIGH)) ^ ((a ^ !b) & HIGH)
}

/// Zigzag at a width: small positive and negative differences become small numbers.
#[inline]
fn zigzag(value: u64, width: usize) -> u64 {
    let bits = 8 * width as u32;
    let signed = ((value << (64 - bits)) as i64) >> (64 - bits);
    (((signed << 1) ^ (signed >> 63)) as u64) & mask(width)
}

#[inline]
fn unzigzag(value: u64, width: usize) -> u64 {
    ((value >> 1) ^ (value & 1).wrapping_neg()) & mask(width)
}

/// The counter fields of one keyframe group and the step each is expected to make.
#[derive(Clone)]
pub struct Counters {
    fields: [CounterField; MAX_COUNTERS],
    len: usize,
    /// Per field: the expected step, or None when the field is coded as plain XOR.
    expected: [Option<u64>; MAX_COUNTERS],
    /// Per field: its width's mask (`mask`), kept for the capture's 8-byte loads.
    masks: [u64; MAX_COUNTERS],
}

impl Counters {
    /// The fields of `list` that lie inside a state of `state_len` bytes, none enabled yet.
    pub fn new(list: &[CounterField], state_len: usize) -> Counters {
        let mut counters = Counters {
            fields: [CounterField {
                offset: 0,
                width: 8,
            }; MAX_COUNTERS],
            len: 0,
            expected: [None; MAX_COUNTERS],
            masks: [u64::MAX; MAX_COUNTERS],
        };
        for &field in list {
            if counters.len < MAX_COUNTERS
                && matches!(field.width, 1..=8)
                && field.offset + field.width <= state_len
            {
                counters.fields[counters.len] = field;
                counters.masks[counters.len] = mask(field.width);
                counters.len += 1;
            }
        }
        counters
    }

    pub fn disable_all(&mut self) {
        self.expected = [None; MAX_COUNTERS];
    }

    /// The bytes of every field, enabled or not (those a delta's encoding may rewrite in
    /// its base).
    pub fn regions(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        self.fields[..self.len]
            .iter()
            .map(|f| f.offset..f.offset + f.width)
    }

    pub fn copy_from(&mut self, other: &Counters) {
        self.expected = other.expected;
    }

    /// Per field: 0 when plain XOR, else 1 + the expected step (varints).
    pub fn write(&self, out: &mut Vec<u8>) {
        put_varint(out, self.len as u64);
        for e in &self.expected[..self.len] {
            put_varint(out, e.map_or(0, |e| e.wrapping_add(1)));
        }
    }

    pub fn read(&mut self, input: &mut &[u8]) -> Option<()> {
        let n = get_varint(input)? as usize;
        if n != self.len {
            return None;
        }
        for k in 0..n {
            let v = get_varint(input)?;
            self.expected[k] = if v == 0 {
                None
            } else {
                let e = v.wrapping_sub(1);
                (e <= mask(self.fields[k].width)).then_some(e)?;
                Some(e)
            };
        }
        Some(())
    }

    /// Encoding a delta from `base` to `cur`: votes the true steps into `votes`, then
    /// rewrites each enabled field of `base` so that `cur - base` there, byte by byte, is the
    /// coded step.
    ///
    /// Each field is read as one 8-byte load, masked to its width, and written back in the
    /// same window with the bytes past the field as they were: every capture codes every
    /// counter, and reading a field by its width went through a match on it each time. A
    /// field whose window passes the state's end takes the general path.
    #[inline]
    pub fn encode(&self, base: &mut [u8], cur: &[u8], votes: &mut CounterVotes) {
        for k in 0..self.len {
            let at = self.fields[k].offset;
            let (Some(old_window), Some(new_window)) = (word_at(base, at), word_at(cur, at)) else {
                self.encode_field(k, base, cur, votes);
                continue;
            };
            let m = self.masks[k];
            let (old, new) = (old_window & m, new_window & m);
            let step = new.wrapping_sub(old) & m;
            votes.vote(k, step);
            if let Some(e) = self.expected[k] {
                let coded = zigzag(step.wrapping_sub(e) & m, self.fields[k].width);
                let window = (old_window & !m) | (bytewise_sub(new, coded) & m);
                base[at..at + 8].copy_from_slice(&window.to_le_bytes());
            }
        }
    }

    /// `encode` of field `k` read and written at its width (a field near the state's end).
    #[cold]
    #[inline(never)]
    fn encode_field(&self, k: usize, base: &mut [u8], cur: &[u8], votes: &mut CounterVotes) {
        let f = self.fields[k];
        let (old, new) = (read_le(base, f), read_le(cur, f));
        let step = new.wrapping_sub(old) & mask(f.width);
        votes.vote(k, step);
        if let Some(e) = self.expected[k] {
            let coded = zigzag(step.wrapping_sub(e) & mask(f.width), f.width);
            write_le(base, f, bytewise_sub(new, coded));
        }
    }

    /// Before patching: the enabled fields' values.
    #[inline]
    pub fn save(&self, target: &[u8], saved: &mut [u64; MAX_COUNTERS]) -> Option<()> {
        let fields = self.fields.iter().zip(&self.expected).take(self.len);
        for ((&f, expected), slot) in fields.zip(saved.iter_mut()) {
            if expected.is_some() {
                target.get(f.offset..f.offset + f.width)?;
                *slot = read_le(target, f);
            }
        }
        Some(())
    }

    /// After patching `target` (byte by byte, adding forward, subtracting backward): turns
    /// each enabled field's coded step back into the value one frame later (`forward`) or
    /// earlier.
    #[inline]
    pub fn finish(&self, saved: &[u64; MAX_COUNTERS], target: &mut [u8], forward: bool) {
        let fields = self.fields.iter().zip(&self.expected).take(self.len);
        for ((&f, &expected), &old) in fields.zip(saved) {
            if let Some(e) = expected {
                let now = read_le(target, f);
                let coded = if forward {
                    bytewise_sub(now, old)
                } else {
                    bytewise_sub(old, now)
                };
                let step = unzigzag(coded, f.width).wrapping_add(e);
                let value = if forward {
                    old.wrapping_add(step)
                } else {
                    old.wrapping_sub(step)
                };
                write_le(target, f, value & mask(f.width));
            }
        }
    }
}

/// The commonest step of each counter over a group (Boyer–Moore majority vote: exact when
/// one step is taken in more than half the frames, which is the case that pays).
#[derive(Clone, Default)]
pub struct CounterVotes {
    candidate: [u64; MAX_COUNTERS],
    weight: [u32; MAX_COUNTERS],
}

impl CounterVotes {
    pub fn reset(&mut self) {
        *self = CounterVotes::default();
    }

    #[inline]
    fn vote(&mut self, k: usize, step: u64) {
        if self.weight[k] == 0 {
            self.candidate[k] = step;
            self.weight[k] = 1;
        } else if self.candidate[k] == step {
            self.weight[k] += 1;
        } else {
            self.weight[k] -= 1;
        }
    }

    /// The next group's counters: every field enabled with its commonest step.
    pub fn choose(&self, out: &mut Counters) {
        for k in 0..out.len {
            out.expected[k] = Some(self.candidate[k] & mask(out.fields[k].width));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytewise_sub_borrows_within_bytes_only() {
        let mut rng = backspin_test_support::SplitMix64::new(9);
        for _ in 0..1000 {
            let (a, b) = (rng.next_u64(), rng.next_u64());
            let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
            let expected = u64::from_le_bytes(std::array::from_fn(|i| x[i].wrapping_sub(y[i])));
            assert_eq!(bytewise_sub(a, b), expected, "{a:#x} - {b:#x}");
        }
        assert_eq!(bytewise_sub(0, u64::MAX), 0x0101_0101_0101_0101);
    }

    #[test]
    fn zigzag_round_trips_at_every_width() {
        for width in [1, 2, 4, 8] {
            for v in [
                0u64,
                1,
                2,
                3,
                0x7F,
                0x80,
                0xFF,
                0xFFFF,
                u64::MAX,
                0x1234_5678_9ABC,
            ] {
                let v = v & mask(width);
                assert_eq!(unzigzag(zigzag(v, width), width), v, "{v:#x} at {width}");
            }
            assert_eq!(zigzag(mask(width), width), 1, "-1 codes as 1");
        }
    }

    #[test]
    fn counters_move_both_ways() {
        let list = [
            CounterField {
                offset: 0,
                width: 8,
            },
            CounterField {
                offset: 8,
                width: 2,
            },
        ];
        let mut counters = Counters::new(&list, 16);
        let mut votes = CounterVotes::default();
        let mut old = [0u8; 16];
        old[..8].copy_from_slice(&0xFFFF_FFF0u64.to_le_bytes());
        old[8..10].copy_from_slice(&0xFFF0u16.to_le_bytes());
        let mut new = old;
        new[..8].copy_from_slice(&(0xFFFF_FFF0u64 + 17_558).to_le_bytes());
        new[8..10].copy_from_slice(
            &0xFFF0u16
                .wrapping_add((70_000u32 % 65_536) as u16)
                .to_le_bytes(),
        );
        let mut base = old;
        counters.encode(&mut base, &new, &mut votes);
        votes.choose(&mut counters);
        counters.expected[0] = Some(17_556);
        let mut base = old;
        counters.encode(&mut base, &new, &mut votes);
        let coded: Vec<u8> = base
            .iter()
            .zip(&new)
            .map(|(a, b)| b.wrapping_sub(*a))
            .collect();
        assert_eq!(coded[..8], 4u64.to_le_bytes(), "zigzag(+2)");
        assert_eq!(coded[8..10], [0, 0], "the voted step");
        // Forward from old, backward from new.
        let mut saved = [0u64; MAX_COUNTERS];
        let mut x = old;
        counters.save(&x, &mut saved).unwrap();
        for (t, c) in x.iter_mut().zip(&coded) {
            *t = t.wrapping_add(*c);
        }
        counters.finish(&saved, &mut x, true);
        assert_eq!(x, new);
        counters.save(&x, &mut saved).unwrap();
        for (t, c) in x.iter_mut().zip(&coded) {
            *t = t.wrapping_sub(*c);
        }
        counters.finish(&saved, &mut x, false);
        assert_eq!(x, old);
    }

    #[test]
    fn counters_in_windows_code_as_at_their_width() {
        // Fields of every width, packed and overlapping each other's windows, the last ones
        // too near the end for a window (the general path).
        let mut list = Vec::new();
        let mut at = 0;
        for width in 1..=8 {
            list.push(CounterField { offset: at, width });
            at += width;
        }
        let len = at + 4;
        list.push(CounterField {
            offset: len - 5,
            width: 2,
        });
        list.push(CounterField {
            offset: len - 4,
            width: 4,
        });
        let mut rng = backspin_test_support::SplitMix64::new(5);
        for round in 0..2000 {
            let mut counters = Counters::new(&list, len);
            assert_eq!(counters.len, list.len());
            for k in 0..counters.len {
                let width = counters.fields[k].width;
                counters.expected[k] = (round % 3 != 0 || k % 2 == 0)
                    .then(|| (rng.next_u64() % 5) & mask(width))
                    .map(|e| if round % 7 == 0 { mask(width) - e } else { e });
            }
            let old: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let mut new = old.clone();
            for b in new.iter_mut() {
                if rng.range(0, 3) == 0 {
                    *b = b.wrapping_add(rng.range(0, 3) as u8).wrapping_sub(1);
                }
            }
            let (mut fast, mut slow) = (old.clone(), old.clone());
            let (mut fast_votes, mut slow_votes) =
                (CounterVotes::default(), CounterVotes::default());
            counters.encode(&mut fast, &new, &mut fast_votes);
            for k in 0..counters.len {
                counters.encode_field(k, &mut slow, &new, &mut slow_votes);
            }
            assert_eq!(fast, slow, "round {round}");
            assert_eq!(fast_votes.candidate, slow_votes.candidate, "round {round}");
            assert_eq!(fast_votes.weight, slow_votes.weight, "round {round}");
        }
    }
}
