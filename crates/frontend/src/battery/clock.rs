//! The MBC3 clock between sessions: how far to advance it when a save is loaded.
//!
//! A battery save's footer carries the host's Unix time when it was written. A real
//! cartridge's clock kept counting while it sat on the shelf, so on load the clock is
//! advanced by the host time elapsed since then. The footer comes from a file, possibly
//! written by another emulator or on a machine whose clock was wrong, so only plausible
//! gaps are applied; anything else is reported and the clock is left where the save put it.

/// 2000-01-01T00:00:00Z. No Game Boy emulator wrote a save before this; a smaller stamp is
/// a zero or garbage footer (some tools write 0), not a cartridge left alone for decades.
pub const EARLIEST_PLAUSIBLE_UNIX: u64 = 946_684_800;

/// The longest gap applied: 100 years. Only a host clock set far into the future passes
/// the other checks with more; the clock's day counter has long wrapped (setting its carry
/// bit) by then, which is exactly what capping keeps.
pub const MAX_CATCH_UP_SECONDS: u64 = 100 * 365 * 86_400;

/// What to do with the clock after loading a save.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClockCatchUp {
    /// No clock footer (no save yet, a cart without a clock, or RAM only): nothing to do.
    NoFooter,
    /// Advance the clock by this many seconds (0 when the save was written this second).
    Advance(u64),
    /// The footer's time is not usable; the clock is not advanced. The text is one line
    /// for the user.
    Refused(String),
}

/// The catch-up rule for a footer stamped `saved_at`, loaded at host time `unix_now`
/// (both Unix seconds).
pub fn catch_up(saved_at: u64, unix_now: u64) -> ClockCatchUp {
    if saved_at < EARLIEST_PLAUSIBLE_UNIX {
        return ClockCatchUp::Refused(format!(
            "the battery save's clock was stamped before 2000 (Unix time {saved_at}); \
             the game clock was not advanced"
        ));
    }
    if saved_at > unix_now {
        return ClockCatchUp::Refused(format!(
            "the battery save's clock was stamped {} in the future (was this computer's \
             clock set back?); the game clock was not advanced",
            describe_seconds(saved_at - unix_now)
        ));
    }
    ClockCatchUp::Advance((unix_now - saved_at).min(MAX_CATCH_UP_SECONDS))
}

/// `90061` → "1 d 1 h 1 min 1 s"-style text, the two largest units only.
pub fn describe_seconds(seconds: u64) -> String {
    let units = [(86_400, "d"), (3_600, "h"), (60, "min"), (1, "s")];
    let mut parts = Vec::new();
    let mut rest = seconds;
    for (size, name) in units {
        if rest >= size || !parts.is_empty() || size == 1 {
            parts.push(format!("{} {name}", rest / size));
            rest %= size;
        }
        if parts.len() == 2 {
            break;
        }
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_800_000_000; // 2027

    #[test]
    fn a_plausible_gap_is_applied_in_full() {
        assert_eq!(
            catch_up(NOW - 2 * 86_400, NOW),
            ClockCatchUp::Advance(2 * 86_400)
        );
        assert_eq!(catch_up(NOW, NOW), ClockCatchUp::Advance(0));
        assert_eq!(
            catch_up(EARLIEST_PLAUSIBLE_UNIX, NOW),
            ClockCatchUp::Advance(NOW - EARLIEST_PLAUSIBLE_UNIX)
        );
    }

    #[test]
    fn a_future_stamp_is_refused_without_wrapping() {
        let ClockCatchUp::Refused(text) = catch_up(NOW + 3 * 3600 + 5, NOW) else {
            panic!("a footer from the future must not advance the clock");
        };
        assert!(text.contains("3 h 0 min in the future"), "{text}");
        assert!(matches!(catch_up(u64::MAX, NOW), ClockCatchUp::Refused(_)));
    }

    #[test]
    fn a_stamp_before_2000_is_refused() {
        assert!(matches!(catch_up(0, NOW), ClockCatchUp::Refused(_)));
        assert!(matches!(
            catch_up(EARLIEST_PLAUSIBLE_UNIX - 1, NOW),
            ClockCatchUp::Refused(_)
        ));
        // A host clock before 2000 refuses every footer rather than computing garbage.
        assert!(matches!(catch_up(NOW, 1000), ClockCatchUp::Refused(_)));
    }

    #[test]
    fn an_absurd_host_clock_is_capped() {
        assert_eq!(
            catch_up(NOW, u64::MAX),
            ClockCatchUp::Advance(MAX_CATCH_UP_SECONDS)
        );
    }

    #[test]
    fn seconds_are_described_by_their_two_largest_units() {
        assert_eq!(describe_seconds(0), "0 s");
        assert_eq!(describe_seconds(59), "59 s");
        assert_eq!(describe_seconds(90_061), "1 d 1 h");
        assert_eq!(describe_seconds(3_605), "1 h 0 min");
    }
}
