//! The core options: one table, offered as options v2 (with categories) or, to frontends
//! without them, as v1 variables; and the values read back.

use std::ffi::{CStr, c_char};

use backspin_core::screen::{ColourCorrection, DmgPalette};

use crate::ffi::{
    CoreOptionV2Category, CoreOptionV2Definition, CoreOptionValue, CoreOptionsV2,
    NUM_CORE_OPTION_VALUES_MAX, Variable,
};

/// One option: its key, texts, category, values (value, label) and default (the first).
struct OptionSpec {
    key: &'static CStr,
    desc: &'static CStr,
    info: &'static CStr,
    category: &'static CStr,
    values: &'static [(&'static CStr, &'static CStr)],
    /// The v1 variable: "Description; default|other|...".
    v1: &'static CStr,
}

pub const MODEL: &CStr = c"backspin_model";
pub const COLOUR_CORRECTION: &CStr = c"backspin_colour_correction";
pub const DMG_PALETTE: &CStr = c"backspin_dmg_palette";
pub const BOOT_ROM: &CStr = c"backspin_boot_rom";
pub const FAST_PATHS: &CStr = c"backspin_fast_paths";

const SPECS: [OptionSpec; 5] = [
    OptionSpec {
        key: MODEL,
        desc: c"Game Boy model (restart)",
        info: c"Which Game Boy to emulate. Auto picks a Game Boy Color for cartridges whose header flags colour support, a Game Boy otherwise. Takes effect when content is loaded or reset.",
        category: c"system",
        values: &[
            (c"auto", c"Auto"),
            (c"dmg", c"Game Boy (DMG)"),
            (c"cgb", c"Game Boy Color (CGB)"),
        ],
        v1: c"Game Boy model (restart); auto|dmg|cgb",
    },
    OptionSpec {
        key: BOOT_ROM,
        desc: c"Use boot ROM (restart)",
        info: c"Run dmg_boot.bin or cgb_boot.bin from the frontend's system directory when present (256 and 2304 bytes). Without one the game starts in the state the boot ROM leaves.",
        category: c"system",
        values: &[(c"disabled", c"Disabled"), (c"enabled", c"Enabled")],
        v1: c"Use boot ROM (restart); disabled|enabled",
    },
    OptionSpec {
        key: COLOUR_CORRECTION,
        desc: c"Colour correction",
        info: c"Game Boy Color colours as they are (off) or as the CGB's reflective LCD showed them (lcd: softer, dimmer).",
        category: c"video",
        values: &[(c"off", c"Off"), (c"lcd", c"LCD")],
        v1: c"Colour correction; off|lcd",
    },
    OptionSpec {
        key: DMG_PALETTE,
        desc: c"Game Boy palette",
        info: c"The colours of the original Game Boy's four shades: even greys, pale greens, the DMG's olive screen, or the Game Boy Pocket's.",
        category: c"video",
        values: &[
            (c"grey", c"Grey"),
            (c"green", c"Green"),
            (c"dmg", c"DMG olive"),
            (c"pocket", c"Pocket"),
        ],
        v1: c"Game Boy palette; grey|green|dmg|pocket",
    },
    OptionSpec {
        key: FAST_PATHS,
        desc: c"Fast paths",
        info: c"The emulator's shortcuts, which give byte-identical results. Switch off only to debug the emulator: it runs several times slower.",
        category: c"advanced",
        values: &[(c"enabled", c"Enabled"), (c"disabled", c"Disabled")],
        v1: c"Fast paths (debugging); enabled|disabled",
    },
];

/// A `*const` table the frontend reads; built once, never written after.
pub struct Tables {
    pub categories: Box<[CoreOptionV2Category]>,
    pub definitions: Box<[CoreOptionV2Definition]>,
    pub options: CoreOptionsV2,
    pub variables: Box<[Variable]>,
}

// SAFETY: every pointer in the tables points at 'static data or into the tables' own boxes,
// which are never written after construction.
unsafe impl Send for Tables {}
unsafe impl Sync for Tables {}

fn build_tables() -> Tables {
    let null = std::ptr::null::<c_char>();
    let categories: Box<[CoreOptionV2Category]> = [
        (
            c"system",
            c"System",
            c"The Game Boy emulated and how it starts.",
        ),
        (c"video", c"Video", c"How the screen's colours are shown."),
        (c"advanced", c"Advanced", c"For debugging the emulator."),
    ]
    .into_iter()
    .map(|(key, desc, info)| CoreOptionV2Category {
        key: key.as_ptr(),
        desc: desc.as_ptr(),
        info: info.as_ptr(),
    })
    .chain(std::iter::once(CoreOptionV2Category {
        key: null,
        desc: null,
        info: null,
    }))
    .collect();
    let empty_value = CoreOptionValue {
        value: null,
        label: null,
    };
    let terminator = CoreOptionV2Definition {
        key: null,
        desc: null,
        desc_categorized: null,
        info: null,
        info_categorized: null,
        category_key: null,
        values: [empty_value; NUM_CORE_OPTION_VALUES_MAX],
        default_value: null,
    };
    let definitions: Box<[CoreOptionV2Definition]> = SPECS
        .iter()
        .map(|spec| {
            let mut values = [empty_value; NUM_CORE_OPTION_VALUES_MAX];
            for (slot, (value, label)) in values.iter_mut().zip(spec.values) {
                *slot = CoreOptionValue {
                    value: value.as_ptr(),
                    label: label.as_ptr(),
                };
            }
            CoreOptionV2Definition {
                key: spec.key.as_ptr(),
                desc: spec.desc.as_ptr(),
                desc_categorized: null,
                info: spec.info.as_ptr(),
                info_categorized: null,
                category_key: spec.category.as_ptr(),
                values,
                default_value: spec.values[0].0.as_ptr(),
            }
        })
        .chain(std::iter::once(terminator))
        .collect();
    let variables: Box<[Variable]> = SPECS
        .iter()
        .map(|spec| Variable {
            key: spec.key.as_ptr(),
            value: spec.v1.as_ptr(),
        })
        .chain(std::iter::once(Variable {
            key: null,
            value: null,
        }))
        .collect();
    let options = CoreOptionsV2 {
        categories: categories.as_ptr(),
        definitions: definitions.as_ptr(),
    };
    Tables {
        categories,
        definitions,
        options,
        variables,
    }
}

/// The option tables, built on first use.
pub fn tables() -> &'static Tables {
    static TABLES: std::sync::OnceLock<Tables> = std::sync::OnceLock::new();
    TABLES.get_or_init(build_tables)
}

/// The model option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ModelChoice {
    #[default]
    Auto,
    Dmg,
    Cgb,
}

/// The options as the core uses them. Unknown or missing values keep the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub model: ModelChoice,
    pub boot_rom: bool,
    pub correction: ColourCorrection,
    pub palette: DmgPalette,
    pub fast_paths: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            model: ModelChoice::Auto,
            boot_rom: false,
            correction: ColourCorrection::Off,
            palette: DmgPalette::Grey,
            fast_paths: true,
        }
    }
}

impl Settings {
    /// Reads every option through `get` (key to value, `None` when the frontend has none).
    pub fn read(mut get: impl FnMut(&CStr) -> Option<String>) -> Settings {
        let mut settings = Settings::default();
        if let Some(value) = get(MODEL) {
            settings.model = match value.as_str() {
                "dmg" => ModelChoice::Dmg,
                "cgb" => ModelChoice::Cgb,
                _ => ModelChoice::Auto,
            };
        }
        if let Some(value) = get(BOOT_ROM) {
            settings.boot_rom = value == "enabled";
        }
        if let Some(value) = get(COLOUR_CORRECTION) {
            settings.correction = ColourCorrection::from_name(&value).unwrap_or_default();
        }
        if let Some(value) = get(DMG_PALETTE) {
            settings.palette = DmgPalette::from_name(&value).unwrap_or_default();
        }
        if let Some(value) = get(FAST_PATHS) {
            settings.fast_paths = value != "disabled";
        }
        settings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_v1_variable_lists_the_v2_values_default_first() {
        for spec in &SPECS {
            let v1 = spec.v1.to_str().unwrap();
            let (_, values) = v1.split_once("; ").unwrap();
            let listed: Vec<&str> = values.split('|').collect();
            let v2: Vec<&str> = spec
                .values
                .iter()
                .map(|(v, _)| v.to_str().unwrap())
                .collect();
            assert_eq!(listed, v2, "{v1}");
        }
    }

    #[test]
    fn defaults_are_the_reference_look() {
        let settings = Settings::read(|_| None);
        assert_eq!(settings, Settings::default());
        assert_eq!(settings.palette, DmgPalette::Grey);
        assert_eq!(settings.correction, ColourCorrection::Off);
    }
}
