/*
 * html.c: text escaped for HTML and gnuplot SVG embedded inline (html.h),
 * for compare's and history's HTML reports.
 */
#include "html.h"

#include <stdlib.h>
#include <string.h>

void sb_html_esc(FILE *f, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

int sb_svg_embed(FILE *f, const char *path, const char *prefix)
{
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    int started = 0;
    static const char *const pats[] = {"id='", "id=\"", "href='#", "href=\"#", "url(#", NULL};
    while (getline(&line, &cap, in) > 0) {
        if (!started && strncmp(line, "<svg", 4) != 0)
            continue;
        started = 1;
        for (const char *p = line; *p;) {
            int hit = 0;
            for (int k = 0; pats[k]; k++) {
                size_t n = strlen(pats[k]);
                if (strncmp(p, pats[k], n) == 0) {
                    fprintf(f, "%s%s_", pats[k], prefix);
                    p += n;
                    hit = 1;
                    break;
                }
            }
            if (!hit)
                fputc(*p++, f);
        }
    }
    free(line);
    fclose(in);
    return started ? 0 : -1;
}
