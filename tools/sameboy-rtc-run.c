// sameboy-rtc-run: runs a ROM in SameBoy with its cartridge clock counting emulated time
// (GB_RTC_MODE_ACCURATE) and writes the screen, for the MBC3 clock probes whose clock runs
// (roms-test/probes/mbc3/). `sameboy-bess make-fixture` keeps SameBoy's default clock, which
// follows the host's wall clock, so a probe that lets the clock run would read what the host
// did. A hand tool: CI never builds SameBoy.
//
// Build (against the folder ../shared/peers/build-sameboy.sh built into):
//   B=/work/sameboy-build
//   cc -O2 -std=gnu11 -I"$B/SameBoy" -o /tmp/sameboy-rtc-run tools/sameboy-rtc-run.c
//     "$B/SameBoy/build/lib/libsameboy.a" $(pkg-config --cflags --libs libpng) -lm
//   (one command line)
// Usage: sameboy-rtc-run ROM DMG|CGB FRAMES OUT.png   (boot ROMs from $SAMEBOY_BOOT_ROMS)
// tools/sameboy-probe.sh --runner /tmp/sameboy-rtc-run uses it in place of sameboy-bess.
// The screen is encoded as sameboy-bess encodes it (grey DMG palette, CGB colours without
// correction), so its `compare` and our screenshots line up.

#include <Core/gb.h>
#include <Core/random.h>

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t pixels[256 * 224];
static const char *boot_dir;
static int boot_missing;

static void die(const char *message, const char *detail)
{
	fprintf(stderr, "sameboy-rtc-run: %s %s\n", message, detail);
	exit(2);
}

static void load_boot_rom(GB_gameboy_t *gb, GB_boot_rom_t type)
{
	const char *file = type == GB_BOOT_ROM_DMG || type == GB_BOOT_ROM_DMG_0 ? "dmg_boot.bin" : "cgb_boot.bin";
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", boot_dir, file);
	if (GB_load_boot_rom(gb, path) != 0) boot_missing = 1;
}

static uint32_t encode_rgb(GB_gameboy_t *gb, uint8_t r, uint8_t g, uint8_t b)
{
	(void) gb;
	return ((uint32_t) r << 16) | ((uint32_t) g << 8) | b;
}

static char *no_input(GB_gameboy_t *gb)
{
	(void) gb;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 5) die("usage:", "sameboy-rtc-run ROM DMG|CGB FRAMES OUT.png");
	boot_dir = getenv("SAMEBOY_BOOT_ROMS");
	if (!boot_dir) boot_dir = ".";
	GB_model_t model;
	if (!strcmp(argv[2], "DMG")) model = GB_MODEL_DMG_B;
	else if (!strcmp(argv[2], "CGB")) model = GB_MODEL_CGB_E;
	else die("unknown model", argv[2]);
	long frames = strtol(argv[3], NULL, 10);

	// Seeded as sameboy-bess seeds it, so power-on RAM is the same in both runners.
	GB_random_seed(0x5A3EB0075A3EB007ULL);
	GB_gameboy_t *gb = GB_init(GB_alloc(), model);
	GB_set_input_callback(gb, no_input);
	GB_set_async_input_callback(gb, NULL);
	GB_set_boot_rom_load_callback(gb, load_boot_rom);
	GB_set_color_correction_mode(gb, GB_COLOR_CORRECTION_DISABLED);
	GB_set_rgb_encode_callback(gb, encode_rgb);
	GB_set_palette(gb, &GB_PALETTE_GREY);
	GB_set_border_mode(gb, GB_BORDER_NEVER);
	GB_set_pixels_output(gb, pixels);
	if (GB_load_rom(gb, argv[1]) != 0) die("cannot load", argv[1]);
	GB_random_seed(0x5A3EB0075A3EB007ULL);
	GB_reset(gb);
	if (boot_missing) die("boot ROM missing under", boot_dir);
	GB_set_rtc_mode(gb, GB_RTC_MODE_ACCURATE);
	for (long i = 0; i < frames; i++) GB_run_frame(gb);

	unsigned w = GB_get_screen_width(gb), h = GB_get_screen_height(gb);
	static uint8_t rgb[256 * 224 * 3];
	for (unsigned i = 0; i < w * h; i++) {
		rgb[i * 3] = pixels[i] >> 16;
		rgb[i * 3 + 1] = pixels[i] >> 8;
		rgb[i * 3 + 2] = pixels[i];
	}
	png_image image;
	memset(&image, 0, sizeof(image));
	image.version = PNG_IMAGE_VERSION;
	image.width = w;
	image.height = h;
	image.format = PNG_FORMAT_RGB;
	if (!png_image_write_to_file(&image, argv[4], 0, rgb, 0, NULL)) die("cannot write", argv[4]);
	return 0;
}
