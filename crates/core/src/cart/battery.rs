//! Battery saves: cartridge RAM (and the MBC3 clock) as bytes for the host to store.
//!
//! The core does no file I/O; the frontend writes what `Rom::battery_bytes` returns and hands
//! the file back to `Rom::load_battery`. The format is the one most emulators share (BGB,
//! VBA-M, SameBoy, mGBA): the RAM as is (header size; 512 bytes for MBC2, one nibble per
//! byte), then for clock carts a 48-byte footer: the five counting registers as u32 LE, the
//! five latched registers as u32 LE, and the host's Unix time as u64 LE. The older 44-byte
//! footer (u32 timestamp) is accepted on load.

use super::mbc3::VALID_BITS;
use super::{CART_RAM_MAX, MbcState, Rom};

const RTC_FOOTER: usize = 48;
const RTC_FOOTER_OLD: usize = 44;

/// Why a battery save was refused. Nothing is modified when one is returned.
#[derive(Debug, thiserror::Error)]
pub enum BatteryError {
    #[error("this cartridge has no battery, so it has no battery save")]
    NoBattery,
    #[error(
        "battery save is {len} bytes; this cartridge has {ram_bytes} bytes of RAM{}",
        if *has_rtc { " and a clock (expected RAM + 44 or 48 bytes)" } else { "" }
    )]
    WrongSize {
        len: usize,
        ram_bytes: usize,
        has_rtc: bool,
    },
}

impl Rom {
    // Hidden from the docs: hosts use `Core::battery_save` and `Core::load_battery`.
    #[doc(hidden)]
    /// The size `battery_bytes` returns: RAM plus the 48-byte clock footer on clock carts;
    /// 0 without a battery.
    pub fn battery_len(&self) -> usize {
        if !self.header.has_battery {
            return 0;
        }
        self.header.ram_bytes + if self.header.has_rtc { RTC_FOOTER } else { 0 }
    }

    #[doc(hidden)]
    /// The battery-backed contents to store on the host: RAM, then on clock carts the clock
    /// footer stamped with `unix_time_now`. Empty for carts without a battery.
    ///
    /// The clock is saved as of its last update; to include the emulated time since then,
    /// pass a copy of the state brought up to date with `Rom::rtc_sync`.
    pub fn battery_bytes(
        &self,
        mbc: &MbcState,
        ram: &[u8; CART_RAM_MAX],
        unix_time_now: u64,
    ) -> Vec<u8> {
        if !self.header.has_battery {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(self.battery_len());
        // ram_bytes <= CART_RAM_MAX: header sizes are at most 128 KiB.
        out.extend_from_slice(&ram[..self.header.ram_bytes.min(CART_RAM_MAX)]);
        if self.header.has_rtc {
            for (i, &reg) in mbc.rtc_live.iter().enumerate() {
                out.extend_from_slice(&u32::from(reg & VALID_BITS[i]).to_le_bytes());
            }
            for (i, &reg) in mbc.rtc_latched.iter().enumerate() {
                out.extend_from_slice(&u32::from(reg & VALID_BITS[i]).to_le_bytes());
            }
            out.extend_from_slice(&unix_time_now.to_le_bytes());
        }
        out
    }

    #[doc(hidden)]
    /// Restores a battery save. Accepts exactly the RAM size, or on clock carts the RAM size
    /// plus a 44- or 48-byte clock footer; returns the footer's Unix time, if any, so the host
    /// can `rtc_advance_seconds` by the time that passed. On error nothing is modified.
    ///
    /// Load at power-on. Mid-run, call `rtc_sync` at the current M-cycle first: the clock
    /// counts from its last update, and the loaded registers should not inherit time that
    /// passed before the load.
    pub fn load_battery(
        &self,
        mbc: &mut MbcState,
        ram: &mut [u8; CART_RAM_MAX],
        bytes: &[u8],
    ) -> Result<Option<u64>, BatteryError> {
        if !self.header.has_battery {
            return Err(BatteryError::NoBattery);
        }
        let ram_bytes = self.header.ram_bytes.min(CART_RAM_MAX);
        let footer_len = bytes.len().checked_sub(ram_bytes);
        let footer_ok = match footer_len {
            Some(0) => true,
            Some(RTC_FOOTER | RTC_FOOTER_OLD) => self.header.has_rtc,
            _ => false,
        };
        if !footer_ok {
            return Err(BatteryError::WrongSize {
                len: bytes.len(),
                ram_bytes,
                has_rtc: self.header.has_rtc,
            });
        }
        let (ram_part, footer) = bytes.split_at(ram_bytes);
        ram[..ram_bytes].copy_from_slice(ram_part);
        if footer.is_empty() {
            return Ok(None);
        }
        let word = |i: usize| {
            let mut le = [0u8; 4];
            le.copy_from_slice(&footer[i * 4..i * 4 + 4]);
            u32::from_le_bytes(le)
        };
        for (i, &valid) in VALID_BITS.iter().enumerate() {
            // Other emulators store the registers as they were; keep only the valid bits.
            mbc.rtc_live[i] = word(i) as u8 & valid;
            mbc.rtc_latched[i] = word(i + 5) as u8 & valid;
        }
        let saved_at = if footer.len() == RTC_FOOTER {
            let mut le = [0u8; 8];
            le.copy_from_slice(&footer[40..48]);
            u64::from_le_bytes(le)
        } else {
            u64::from(word(10))
        };
        Ok(Some(saved_at))
    }
}
