//! Starting a play session on a game: resumed, or from power-on.

use crate::battery::{BatteryKeeper, ClockCatchUp};
use crate::player::game::Game;
use crate::player::slots::{self, Slots};
use backspin_rewind::Timeline;

/// A new play session: its timeline, battery keeper and slots, and what to tell the player.
pub(super) struct Session {
    pub(super) timeline: Timeline,
    pub(super) battery: Option<BatteryKeeper>,
    pub(super) slots: Option<Slots>,
    pub(super) notice: Option<String>,
}

/// A session on `game`: resumed where the last one ended (with its rewind history) when
/// `resume` and the ROM has a resume point, else a timeline from its power-on state
/// (battery save loaded) with the cartridge clock's catch-up recorded as the first input.
pub(super) fn new_session(game: Game, budget_bytes: usize, resume: bool) -> Session {
    let resumed = match (&game.slots, resume) {
        (Some(slots), true) => slots::read_resume(slots, &game.core, budget_bytes),
        _ => None,
    };
    if let Some(resumed) = resumed {
        return Session {
            timeline: resumed.timeline,
            battery: game.battery,
            slots: game.slots,
            notice: Some(resumed.notice),
        };
    }
    let mut timeline = Timeline::new(game.core, budget_bytes);
    match game.clock {
        ClockCatchUp::NoFooter => {}
        ClockCatchUp::Advance(seconds) => {
            log::info!(
                "cartridge clock advanced by {} since the save was written",
                crate::battery::describe_seconds(seconds)
            );
            timeline.rtc_advance(seconds);
        }
        ClockCatchUp::Refused(warning) => match &game.battery {
            Some(battery) => log::warn!("{warning} ({})", battery.path().display()),
            None => log::warn!("{warning}"),
        },
    }
    Session {
        timeline,
        battery: game.battery,
        slots: game.slots,
        notice: None,
    }
}
