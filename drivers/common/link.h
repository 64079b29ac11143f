/*
 * A connection's open statements, one way for every driver: an intrusive
 * doubly linked list, so that close_stmt takes a statement out in O(1) and
 * disconnect frees whatever the host left open.  The driver's struct
 * embeds a struct sbc_link as its first member (a pointer to the struct
 * and to the link are then the same pointer) and the connection keeps the
 * head, NULL when empty.  Inline, no allocation; the list owns nothing:
 * the driver frees what it takes out.
 */
#ifndef SBENCH_DRIVERS_LINK_H
#define SBENCH_DRIVERS_LINK_H

#include <stddef.h>

struct sbc_link {
    struct sbc_link *prev, *next;
};

/* Puts n, which is in no list, at the front of the list *head. */
static inline void sbc_link_add(struct sbc_link **head, struct sbc_link *n)
{
    n->prev = NULL;
    n->next = *head;
    if (*head != NULL)
        (*head)->prev = n;
    *head = n;
}

/* Takes n out of the list *head, which holds it. */
static inline void sbc_link_remove(struct sbc_link **head, struct sbc_link *n)
{
    if (n->prev != NULL)
        n->prev->next = n->next;
    else
        *head = n->next;
    if (n->next != NULL)
        n->next->prev = n->prev;
    n->prev = n->next = NULL;
}

/* Takes the first element out of the list *head and returns it; NULL when
 * the list is empty. */
static inline struct sbc_link *sbc_link_pop(struct sbc_link **head)
{
    struct sbc_link *n = *head;
    if (n != NULL)
        sbc_link_remove(head, n);
    return n;
}

#endif /* SBENCH_DRIVERS_LINK_H */
