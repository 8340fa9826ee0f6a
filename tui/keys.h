/* SPDX-License-Identifier: MIT */
/*
 * keys.h - the viewer's keys, as in htop and k9s: one table maps keys to
 * actions, and the help overlay and the footer are made from it.
 */
#ifndef HCB_TUI_KEYS_H
#define HCB_TUI_KEYS_H

enum tui_action {
	TUI_NONE = 0,
	TUI_QUIT,
	TUI_HELP,
	TUI_SEARCH,
	TUI_NEXT,
	TUI_PREV,
	TUI_NEXT_NONFINITE,     /* the next tap holding a NaN or inf */
	TUI_PREV_NONFINITE,
	TUI_FILTER,
	TUI_PAUSE,
	TUI_DOWN,
	TUI_UP,
	TUI_PGDN,
	TUI_PGUP,
	TUI_HOME,
	TUI_END,
	TUI_ENTER,
	TUI_TAB,
	TUI_BACKTAB,
	TUI_ESC,
	TUI_STAT,
	TUI_PLOT,
	TUI_REDRAW,
	TUI_RESIZE,
};

struct tui_keyhelp {
	const char *keys;       /* "j/Down" */
	const char *what;       /* "next row" */
	const char *footer;     /* short label for the footer, or NULL */
};

/* The action of a key from getch() (curses KEY_* codes included). */
enum tui_action tui_key_action(int key);

/* The help overlay's lines, ending with { NULL }. */
extern const struct tui_keyhelp tui_keyhelp[];

/* The footer: "q quit  ? help  / search ..." cut to width columns
 * (never more than cap - 1 bytes). */
void tui_footer_keys(char *out, int cap, int width);

#endif
