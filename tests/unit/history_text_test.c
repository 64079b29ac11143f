/*
 * history_text_test.c: history/history_text.c: secrets masked in a
 * command line before it is stored (URIs' passwords, password=VALUE,
 * a secret shorter than its mask), labels checked, joined, sorted and
 * deduplicated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../history/history.h"
#include "../../history/history_text.h"

static int failures, checks;

static void same(const char *what, const char *got, const char *want)
{
    checks++;
    if (got && strcmp(got, want) == 0)
        printf("ok   %s\n", what);
    else {
        printf("FAIL %s: got '%s', want '%s'\n", what, got ? got : "(null)", want);
        failures++;
    }
}

static void masked(const char *in, const char *want)
{
    char *got = hist_masked(in);
    same(in, got, want);
    free(got);
}

int main(void)
{
    masked("sbench --history=postgresql://bench:s3cret@db:5432/h run",
           "sbench --history=postgresql://bench:***@db:5432/h run");
    masked("--history=postgres://bench@db/h", "--history=postgres://bench@db/h");
    masked("--history=host=db password=s3cret dbname=h", "--history=host=db password=*** dbname=h");
    masked("sbench --pgsql-password=abc oltp run", "sbench --pgsql-password=*** oltp run");
    masked("--mysql-password=a", "--mysql-password=***");
    masked("a://:p@h b://u:q@h", "a://:***@h b://u:***@h");
    masked("postgresql://u:pw@h/db?password=x&sslmode=disable",
           "postgresql://u:***@h/db?password=***&sslmode=disable");
    masked("http://host:8080/path", "http://host:8080/path");
    masked("", "");

    char err[256];
    checks++;
    if (sb_hist_label_check("build=abc", err, sizeof err) == 0 && sb_hist_label_check("=x", err, sizeof err) < 0 &&
        sb_hist_label_check("novalue", err, sizeof err) < 0 && sb_hist_label_check("a=b\nc", err, sizeof err) < 0 &&
        sb_hist_label_check("k=", err, sizeof err) == 0)
        printf("ok   label checks\n");
    else
        printf("FAIL label checks\n"), failures++;
    const char *labels[] = {"os=deb", "build=1", "zone=a", "build=2"};
    char *j = hist_labels_joined(labels, 4);
    same("labels joined, sorted, a key given twice keeps its last", j, "build=2\nos=deb\nzone=a");
    free(j);
    printf("history_text: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
