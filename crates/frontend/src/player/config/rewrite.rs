//! Rewriting config.toml in place with `toml_edit`: one list or value at a time, so the
//! user's comments, order and spacing stay. Used by the menu (rebinding, settings) and by
//! the one-time migration of Escape from pause to the menu.

use super::{Action, Bindings, ButtonKey, key_name, name_of};
use std::path::Path;
use winit::keyboard::KeyCode;

/// Config text in which `code` is `action`'s key (its Shift+ keys kept), taken away from
/// the action that had it, everything else as it was (comments, order, spacing). Returns
/// the text and the action the key was taken from.
pub fn rebind_key(
    text: &str,
    bindings: &Bindings,
    action: Action,
    code: KeyCode,
) -> Result<(String, Option<Action>), String> {
    let name = key_name(code).ok_or("that key has no name in the config file")?;
    let mut document: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("not valid TOML: {}", e.message()))?;
    let table = document
        .entry("keyboard")
        .or_insert_with(toml_edit::table)
        .as_table_mut()
        .ok_or("[keyboard] is not a table")?;
    let shifted = |action: Action| {
        bindings
            .shifted_keys
            .iter()
            .filter(move |(_, bound)| **bound == action)
            .map(|(code, _)| format!("Shift+{}", key_name(*code).unwrap_or("?")))
    };
    let taken_from = bindings.keys.get(&code).copied().filter(|a| *a != action);
    let mut names = vec![name.to_string()];
    names.extend(shifted(action));
    set_list(table, &name_of(action), names);
    if let Some(other) = taken_from {
        let mut names: Vec<String> = bindings
            .keys
            .iter()
            .filter(|(c, bound)| **bound == other && **c != code)
            .filter_map(|(c, _)| key_name(*c).map(str::to_string))
            .collect();
        names.extend(shifted(other));
        set_list(table, &name_of(other), names);
    }
    Ok((document.to_string(), taken_from))
}

/// Config text in which the pad's `button` is `action`'s button, taken away from the
/// action that had it, everything else as it was. Returns the text and that action.
pub fn rebind_button(
    text: &str,
    bindings: &Bindings,
    action: Action,
    button: ButtonKey,
) -> Result<(String, Option<Action>), String> {
    let mut document: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("not valid TOML: {}", e.message()))?;
    let table = document
        .entry("gamepad")
        .or_insert_with(toml_edit::table)
        .as_table_mut()
        .ok_or("[gamepad] is not a table")?;
    let taken_from = bindings.pad.get(&button).copied().filter(|a| *a != action);
    set_list(table, &name_of(action), vec![button.0.to_string()]);
    if let Some(other) = taken_from {
        let names = bindings
            .pad
            .iter()
            .filter(|(b, bound)| **bound == other && **b != button)
            .map(|(b, _)| b.0.to_string())
            .collect();
        set_list(table, &name_of(other), names);
    }
    Ok((document.to_string(), taken_from))
}

/// Config text with the default bindings: `[keyboard]` and `[gamepad]` emptied (so every
/// action takes its default), the file's other tables and comments kept.
pub fn reset_bindings(text: &str) -> Result<String, String> {
    let mut document: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("not valid TOML: {}", e.message()))?;
    for table in ["keyboard", "gamepad"] {
        if let Some(table) = document.get_mut(table).and_then(|t| t.as_table_mut()) {
            table.clear();
        }
    }
    Ok(document.to_string())
}

/// Sets `key` of `table` to the list `names`, keeping the old value's trailing comment.
fn set_list(table: &mut toml_edit::Table, key: &str, names: Vec<String>) {
    set_value(
        table,
        key,
        toml_edit::Value::Array(names.into_iter().collect()),
    );
}

/// Sets `key` of `table` to `value`: in place of the old value, whose spacing and trailing
/// comment stay, or added at the table's end.
pub(crate) fn set_value(table: &mut toml_edit::Table, key: &str, mut value: toml_edit::Value) {
    match table.get_mut(key).and_then(toml_edit::Item::as_value_mut) {
        Some(old) => {
            *value.decor_mut() = old.decor().clone();
            *old = value;
        }
        None => {
            table.insert(key, toml_edit::Item::Value(value));
        }
    }
}

/// The keys that opened nothing before the menu existed and paused instead: Escape on the
/// keyboard and Mode on a gamepad. They open the menu now, and pause stays on P.
const MOVED_TO_MENU: &[(&str, &str)] = &[("keyboard", "Escape"), ("gamepad", "Mode")];

/// A config file written before the menu existed gives Escape (and the pad's Mode) to pause,
/// which would keep them from opening the menu. Such a file is rewritten once without them
/// (comments, order and everything else kept), with a one-line notice; the text to use is
/// returned even when the file cannot be written.
pub(super) fn migrate_menu_keys(path: &Path, text: String) -> String {
    let Some(migrated) = without_pause_menu_keys(&text) else {
        return text;
    };
    match crate::battery::write_atomic(path, migrated.as_bytes()) {
        Ok(()) => log::warn!(
            "{}: Escape now opens the menu, so it no longer pauses (pause stays on P); file updated",
            path.display()
        ),
        Err(error) => log::warn!(
            "Escape now opens the menu, so it no longer pauses (pause stays on P); cannot update {}: {error}",
            path.display()
        ),
    }
    migrated
}

/// `text` with Escape and Mode taken out of the pause lists, or `None` when neither is
/// there (or the file does not parse: then the usual problems are reported).
pub(super) fn without_pause_menu_keys(text: &str) -> Option<String> {
    let mut document: toml_edit::DocumentMut = text.parse().ok()?;
    let mut changed = false;
    for (table, moved) in MOVED_TO_MENU {
        let Some(pause) = document
            .get_mut(table)
            .and_then(|table| table.get_mut("pause"))
            .and_then(|item| item.as_array_mut())
        else {
            continue;
        };
        let before = pause.len();
        pause.retain(|value| {
            !value
                .as_str()
                .is_some_and(|name| name.eq_ignore_ascii_case(moved))
        });
        changed |= pause.len() != before;
    }
    changed.then(|| document.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebinding_takes_the_key_from_its_action_and_keeps_comments() {
        let text = "# mine\n[keyboard]\npause = [\"KeyP\"] # pausing\n";
        let bindings = Bindings::parse(text).unwrap();
        let (text, taken) = rebind_key(text, &bindings, Action::Pause, KeyCode::KeyZ).unwrap();
        assert_eq!(taken, Some(Action::Joypad(backspin_core::Buttons::B)));
        assert_eq!(
            text,
            "# mine\n[keyboard]\npause = [\"KeyZ\"] # pausing\nb = []\n"
        );
        let bindings = Bindings::parse(&text).unwrap();
        assert_eq!(bindings.keys[&KeyCode::KeyZ], Action::Pause);
        let (text, _) = rebind_key(&text, &bindings, Action::SaveSlot(1), KeyCode::KeyQ).unwrap();
        assert!(
            text.ends_with("save_slot_1 = [\"KeyQ\", \"Shift+F1\"]\n"),
            "{text}"
        );
        let (text, taken) = rebind_button(
            &text,
            &Bindings::parse(&text).unwrap(),
            Action::Pause,
            ButtonKey("South"),
        )
        .unwrap();
        assert_eq!(taken, Some(Action::Joypad(backspin_core::Buttons::B)));
        let pad = Bindings::parse(&text).unwrap().pad;
        assert_eq!(pad[&ButtonKey("South")], Action::Pause);
        let text = reset_bindings(&text).unwrap();
        assert_eq!(text, "# mine\n[keyboard]\n\n[gamepad]\n");
        assert_eq!(
            Bindings::parse(&text).unwrap().keys,
            Bindings::defaults().keys
        );
    }
}
