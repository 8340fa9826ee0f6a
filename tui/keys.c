/* SPDX-License-Identifier: MIT */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "keys.h"

#define CTRL(c) ((c) & 0x1f)

static const struct {
	int key;
	enum tui_action action;
} keymap[] = {
	{ 'q', TUI_QUIT },
	{ 'Q', TUI_QUIT },
	{ '?', TUI_HELP },
	{ KEY_F(1), TUI_HELP },
	{ '/', TUI_SEARCH },
	{ 'n', TUI_NEXT },
	{ 'N', TUI_PREV },
	{ ']', TUI_NEXT_NONFINITE },
	{ '[', TUI_PREV_NONFINITE },
	{ 'f', TUI_FILTER },
	{ ' ', TUI_PAUSE },
	{ 'p', TUI_PAUSE },
	{ 'j', TUI_DOWN },
	{ KEY_DOWN, TUI_DOWN },
	{ 'k', TUI_UP },
	{ KEY_UP, TUI_UP },
	{ KEY_NPAGE, TUI_PGDN },
	{ CTRL('f'), TUI_PGDN },
	{ CTRL('d'), TUI_PGDN },
	{ KEY_PPAGE, TUI_PGUP },
	{ CTRL('b'), TUI_PGUP },
	{ CTRL('u'), TUI_PGUP },
	{ 'g', TUI_HOME },
	{ KEY_HOME, TUI_HOME },
	{ 'G', TUI_END },
	{ KEY_END, TUI_END },
	{ '\n', TUI_ENTER },
	{ '\r', TUI_ENTER },
	{ KEY_ENTER, TUI_ENTER },
	{ '\t', TUI_TAB },
	{ KEY_BTAB, TUI_BACKTAB },
	{ 27, TUI_ESC },
	{ 's', TUI_STAT },
	{ 'v', TUI_PLOT },
	{ CTRL('l'), TUI_REDRAW },
	{ KEY_RESIZE, TUI_RESIZE },
};

enum tui_action tui_key_action(int key)
{
	for (size_t i = 0; i < sizeof(keymap) / sizeof(keymap[0]); i++)
		if (keymap[i].key == key)
			return keymap[i].action;
	return TUI_NONE;
}

const struct tui_keyhelp tui_keyhelp[] = {
	{ "q", "quit (the target keeps running)", "quit" },
	{ "?", "this help; any key closes it", "help" },
	{ "/", "search consumer names and kwargs (case ignored)", "search" },
	{ "n  N", "next / previous match", "next" },
	{ "]  [", "next / previous tap holding a NaN or inf (marked !)", "NaN" },
	{ "f", "filter: a device number, @PROC (a process) or a consumer name; empty clears", "filter" },
	{ "space", "pause the screen (taps are still received and counted)", "pause" },
	{ "j k  Down Up", "next / previous row", NULL },
	{ "PgDn PgUp", "a page down / up (also ^F ^B)", NULL },
	{ "g  Home", "first row", NULL },
	{ "G  End", "last row; the tap list follows new taps again", "follow" },
	{ "Enter", "show the selected tap in the detail pane; again closes it", "detail" },
	{ "Tab", "next pane (Shift-Tab: previous)", "pane" },
	{ "s", "sparkline of the mean, min or max of each tap's first array", "stat" },
	{ "v", "detail: the plot of the tap's array or its text, when both do not fit", "plot" },
	{ "Esc", "close the detail pane, the help or a prompt", NULL },
	{ "^L", "redraw the screen", NULL },
	{ NULL, NULL, NULL },
};

void tui_footer_keys(char *out, int cap, int width)
{
	static const char *const shown[][2] = {
		{ "q", "quit" }, { "?", "help" }, { "/", "search" }, { "n/N", "next" },
		{ "f", "filter" }, { "spc", "pause" }, { "Tab", "pane" }, { "Enter", "detail" },
		{ "G", "follow" }, { "]", "NaN" },
	};
	int len = 0;

	if (cap <= 0)
		return;
	out[0] = '\0';
	if (width > cap - 1)
		width = cap - 1;
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		int n = (int)strlen(shown[i][0]) + 1 + (int)strlen(shown[i][1]) + (len ? 1 : 0);

		if (len + n > width)
			break;
		len += snprintf(out + len, (size_t)(cap - len), "%s%s %s", len ? " " : "",
				shown[i][0], shown[i][1]);
	}
}
