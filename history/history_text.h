/*
 * history_text.h: the small string helpers of history/ (history_text.c):
 * copies that never fail on NULL, secrets masked in a command line, the
 * labels of a record.
 */
#ifndef SB_HISTORY_TEXT_H
#define SB_HISTORY_TEXT_H

/* A copy of s ("" for NULL); NULL only when out of memory. */
char *hist_strdup(const char *s);
/* A copy of s with its passwords masked (lib/secret_mask.c: a URI's
 * user:PASSWORD@, password=VALUE, PWD=VALUE become ***). */
char *hist_masked(const char *s);
/* "KEY=VALUE\n" per label, sorted by key (checked by sb_hist_label_check). */
char *hist_labels_joined(const char *const *labels, int n);

#endif
