//! Input sources merged into what the emulation sees: the keyboard and each gamepad keep
//! their own held buttons and hotkeys, so one source letting go (a key released, a pad
//! unplugged mid-game) releases only what that source held, and nothing stays stuck.
//!
//! Pure bookkeeping, no window or device: the app feeds it events and acts on the
//! [`Effect`]s, which is what the tests check.

use super::config::{Action, Bindings, ButtonKey};
use backspin_core::Buttons;
use std::collections::{BTreeMap, BTreeSet};

/// Where an input came from. Pads are told apart by gilrs' id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Keyboard,
    Pad(usize),
}

/// The gamepad events the player uses (gilrs' own event type cannot be built in tests).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PadEvent {
    Button {
        pad: usize,
        button: gilrs::Button,
        pressed: bool,
    },
    Axis {
        pad: usize,
        axis: gilrs::Axis,
        value: f32,
    },
    Connected {
        pad: usize,
    },
    Disconnected {
        pad: usize,
    },
}

impl PadEvent {
    pub fn from_gilrs(event: &gilrs::Event) -> Option<PadEvent> {
        let pad = usize::from(event.id);
        Some(match event.event {
            gilrs::EventType::ButtonPressed(button, _) => PadEvent::Button {
                pad,
                button,
                pressed: true,
            },
            gilrs::EventType::ButtonReleased(button, _) => PadEvent::Button {
                pad,
                button,
                pressed: false,
            },
            gilrs::EventType::AxisChanged(axis, value, _) => PadEvent::Axis { pad, axis, value },
            gilrs::EventType::Connected => PadEvent::Connected { pad },
            gilrs::EventType::Disconnected => PadEvent::Disconnected { pad },
            _ => return None,
        })
    }
}

/// What the app must do after an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// The merged Game Boy buttons changed.
    Buttons(u8),
    /// A hold-to-act hotkey (rewind, redo, fast-forward) started or stopped.
    Hold(Action, bool),
    /// A press-to-act hotkey fired.
    Press(Action),
    PadConnected,
    PadDisconnected,
}

#[derive(Default)]
struct SourceInput {
    buttons: u8,
    /// D-pad directions from the left stick (and pads that report their d-pad as axes).
    axis_buttons: u8,
    /// Ordered, so releasing everything sends its effects in a fixed order.
    held: BTreeSet<Action>,
}

#[derive(Default)]
pub struct InputState {
    keyboard: SourceInput,
    pads: BTreeMap<usize, SourceInput>,
    sent_buttons: u8,
}

impl InputState {
    /// A binding of `source` went down or up.
    pub fn action(&mut self, source: Source, action: Action, pressed: bool, out: &mut Vec<Effect>) {
        let was_held = self.held_anywhere(action);
        let input = self.source(source);
        if pressed {
            input.held.insert(action);
        } else {
            input.held.remove(&action);
        }
        if let Action::Joypad(bit) = action {
            if pressed {
                input.buttons |= bit;
            } else {
                input.buttons &= !bit;
            }
            self.send_buttons(out);
            return;
        }
        let now_held = self.held_anywhere(action);
        match action {
            Action::Rewind | Action::Forward | Action::FastForward if now_held != was_held => {
                out.push(Effect::Hold(action, now_held));
            }
            Action::Rewind | Action::Forward | Action::FastForward => {}
            // Holding a frame-step key steps repeatedly (key repeat); the rest act once.
            Action::FrameAdvance | Action::FrameBack if pressed => out.push(Effect::Press(action)),
            _ if pressed && !was_held => out.push(Effect::Press(action)),
            _ => {}
        }
    }

    pub fn pad_event(&mut self, event: PadEvent, bindings: &Bindings, out: &mut Vec<Effect>) {
        match event {
            PadEvent::Button {
                pad,
                button,
                pressed,
            } => {
                if let Some(action) = ButtonKey::of(button).and_then(|k| bindings.pad.get(&k)) {
                    self.action(Source::Pad(pad), *action, pressed, out);
                }
            }
            PadEvent::Axis { pad, axis, value } => {
                use gilrs::Axis;
                let (negative, positive) = match axis {
                    Axis::LeftStickX | Axis::DPadX => (Buttons::LEFT, Buttons::RIGHT),
                    Axis::LeftStickY | Axis::DPadY => (Buttons::DOWN, Buttons::UP),
                    _ => return,
                };
                let input = self.source(Source::Pad(pad));
                input.axis_buttons &= !(negative | positive);
                // NaN (a confused driver) counts as centred.
                if value < -0.5 {
                    input.axis_buttons |= negative;
                } else if value > 0.5 {
                    input.axis_buttons |= positive;
                }
                self.send_buttons(out);
            }
            PadEvent::Connected { pad } => {
                self.pads.entry(pad).or_default();
                out.push(Effect::PadConnected);
            }
            PadEvent::Disconnected { pad } => {
                self.release(Source::Pad(pad), out);
                self.pads.remove(&pad);
                out.push(Effect::PadDisconnected);
            }
        }
    }

    /// Lets go of everything `source` holds (an unplugged pad; the window losing focus,
    /// after which key releases never arrive).
    /// Lets go of everything the keyboard and every gamepad hold (the menu opened).
    pub fn release_all(&mut self, out: &mut Vec<Effect>) {
        self.release(Source::Keyboard, out);
        let pads: Vec<usize> = self.pads.keys().copied().collect();
        for pad in pads {
            self.release(Source::Pad(pad), out);
        }
    }

    pub fn release(&mut self, source: Source, out: &mut Vec<Effect>) {
        let held: Vec<Action> = self.source(source).held.iter().copied().collect();
        for action in held {
            self.action(source, action, false, out);
        }
        let input = self.source(source);
        input.buttons = 0;
        input.axis_buttons = 0;
        self.send_buttons(out);
    }

    fn source(&mut self, source: Source) -> &mut SourceInput {
        match source {
            Source::Keyboard => &mut self.keyboard,
            Source::Pad(pad) => self.pads.entry(pad).or_default(),
        }
    }

    fn held_anywhere(&self, action: Action) -> bool {
        self.keyboard.held.contains(&action)
            || self.pads.values().any(|pad| pad.held.contains(&action))
    }

    fn merged_buttons(&self) -> u8 {
        std::iter::once(&self.keyboard)
            .chain(self.pads.values())
            .fold(0, |merged, input| {
                merged | input.buttons | input.axis_buttons
            })
    }

    fn send_buttons(&mut self, out: &mut Vec<Effect>) {
        let merged = self.merged_buttons();
        if merged != self.sent_buttons {
            self.sent_buttons = merged;
            out.push(Effect::Buttons(merged));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gilrs::{Axis, Button};

    fn bindings() -> Bindings {
        Bindings::defaults()
    }

    fn pad_button(pad: usize, button: Button, pressed: bool) -> PadEvent {
        PadEvent::Button {
            pad,
            button,
            pressed,
        }
    }

    fn joypad_bit(bindings: &Bindings, button: Button) -> u8 {
        match bindings.pad.get(&ButtonKey::of(button).unwrap()) {
            Some(Action::Joypad(bit)) => *bit,
            other => panic!("{button:?} is bound to {other:?}"),
        }
    }

    fn rewind_button(bindings: &Bindings) -> Button {
        [
            Button::LeftTrigger,
            Button::LeftTrigger2,
            Button::RightTrigger,
        ]
        .into_iter()
        .find(|&b| bindings.pad.get(&ButtonKey::of(b).unwrap()) == Some(&Action::Rewind))
        .expect("a shoulder button rewinds by default")
    }

    /// A pad unplugged while holding a button, a stick direction and the rewind shoulder
    /// button: everything it held is released and nothing panics; what the keyboard holds
    /// stays held.
    #[test]
    fn unplugging_a_pad_mid_game_releases_only_what_it_held() {
        let bindings = bindings();
        let a = joypad_bit(&bindings, Button::South);
        let rewind = rewind_button(&bindings);
        let mut input = InputState::default();
        let mut out = Vec::new();
        input.pad_event(PadEvent::Connected { pad: 0 }, &bindings, &mut out);
        input.pad_event(pad_button(0, Button::South, true), &bindings, &mut out);
        input.pad_event(
            PadEvent::Axis {
                pad: 0,
                axis: Axis::LeftStickX,
                value: -0.9,
            },
            &bindings,
            &mut out,
        );
        input.pad_event(pad_button(0, rewind, true), &bindings, &mut out);
        input.action(
            Source::Keyboard,
            Action::Joypad(Buttons::SELECT),
            true,
            &mut out,
        );
        assert_eq!(
            out,
            [
                Effect::PadConnected,
                Effect::Buttons(a),
                Effect::Buttons(a | Buttons::LEFT),
                Effect::Hold(Action::Rewind, true),
                Effect::Buttons(a | Buttons::LEFT | Buttons::SELECT),
            ]
        );
        out.clear();
        input.pad_event(PadEvent::Disconnected { pad: 0 }, &bindings, &mut out);
        assert!(
            out.contains(&Effect::Hold(Action::Rewind, false)),
            "{out:?}"
        );
        assert_eq!(out.last(), Some(&Effect::PadDisconnected));
        assert!(out.contains(&Effect::Buttons(Buttons::SELECT)), "{out:?}");
        // Events from the gone pad that were already queued are harmless.
        out.clear();
        input.pad_event(pad_button(0, Button::South, false), &bindings, &mut out);
        input.pad_event(PadEvent::Disconnected { pad: 0 }, &bindings, &mut out);
        assert_eq!(out, [Effect::PadDisconnected]);
    }

    /// Two sources holding rewind: it stops only when both let go.
    #[test]
    fn a_hotkey_held_by_two_sources_ends_when_both_let_go() {
        let bindings = bindings();
        let rewind = rewind_button(&bindings);
        let mut input = InputState::default();
        let mut out = Vec::new();
        input.action(Source::Keyboard, Action::Rewind, true, &mut out);
        input.pad_event(pad_button(3, rewind, true), &bindings, &mut out);
        input.pad_event(PadEvent::Disconnected { pad: 3 }, &bindings, &mut out);
        assert_eq!(
            out,
            [Effect::Hold(Action::Rewind, true), Effect::PadDisconnected]
        );
        out.clear();
        input.release(Source::Keyboard, &mut out);
        assert_eq!(out, [Effect::Hold(Action::Rewind, false)]);
    }

    #[test]
    fn key_repeat_fires_frame_steps_but_not_pause() {
        let mut input = InputState::default();
        let mut out = Vec::new();
        for _ in 0..3 {
            input.action(Source::Keyboard, Action::Pause, true, &mut out);
            input.action(Source::Keyboard, Action::FrameAdvance, true, &mut out);
        }
        assert_eq!(
            out,
            [
                Effect::Press(Action::Pause),
                Effect::Press(Action::FrameAdvance),
                Effect::Press(Action::FrameAdvance),
                Effect::Press(Action::FrameAdvance),
            ]
        );
    }

    #[test]
    fn a_nan_axis_reads_as_centred() {
        let bindings = bindings();
        let mut input = InputState::default();
        let mut out = Vec::new();
        let axis = |value| PadEvent::Axis {
            pad: 1,
            axis: Axis::LeftStickY,
            value,
        };
        input.pad_event(axis(1.0), &bindings, &mut out);
        input.pad_event(axis(f32::NAN), &bindings, &mut out);
        assert_eq!(out, [Effect::Buttons(Buttons::UP), Effect::Buttons(0)]);
    }
}
