//! A seeded joypad script that plays like a person: input without a player, for
//! `movie record --random-seed`, the rewind bench, and the tests and benches (which reach it
//! through `backspin-test-support`).

use crate::SplitMix64;
use backspin_core::Buttons;

/// Presses held 5–40 frames, pauses of 2–50 frames between them, mostly one direction or
/// button, sometimes a direction with A or B, now and then Start or Select.
pub struct InputScript {
    rng: SplitMix64,
    buttons: u8,
    frames_left: u64,
    pressing: bool,
}

impl InputScript {
    /// The script for `seed`: the same seed plays the same presses everywhere (the rewind
    /// bench's `--input-seed`).
    pub fn new(seed: u64) -> InputScript {
        InputScript {
            rng: SplitMix64::new(seed ^ 0x5EED_0FBA_C591_4E00),
            buttons: 0,
            frames_left: 30,
            pressing: false,
        }
    }

    /// The buttons to hold for the next frame (a `Buttons` mask).
    pub fn next_frame(&mut self) -> u8 {
        if self.frames_left == 0 {
            self.pressing = !self.pressing;
            if self.pressing {
                let direction = 1 << self.rng.range(0, 3);
                let action = [Buttons::A, Buttons::B][self.rng.range(0, 1) as usize];
                self.buttons = match self.rng.range(0, 99) {
                    0..=44 => direction,
                    45..=79 => action,
                    80..=93 => direction | action,
                    94..=97 => Buttons::START,
                    _ => Buttons::SELECT,
                };
                self.frames_left = self.rng.range(5, 40);
            } else {
                self.buttons = 0;
                self.frames_left = self.rng.range(2, 50);
            }
        }
        self.frames_left -= 1;
        self.buttons
    }
}
