/*
 * html.h: what the HTML reports share (compare's, history's): text
 * escaped for HTML, and a gnuplot SVG file embedded inline with its ids
 * made unique to the chart.
 */
#ifndef SB_HTML_H
#define SB_HTML_H

#include <stdio.h>

/* s written to f with < > & " escaped (NULL: nothing). */
void sb_html_esc(FILE *f, const char *s);

/* The SVG at path copied into f from its <svg element on, every id and
 * reference to one (id=, href=#, url(#)) prefixed with "prefix_", so that
 * several charts live in one page.  0, or -1 (no file, no <svg in it). */
int sb_svg_embed(FILE *f, const char *path, const char *prefix);

#endif
