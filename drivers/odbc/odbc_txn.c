/*
 * odbc driver: transactions, driven through SQL_ATTR_AUTOCOMMIT and
 * SQLEndTran, never through BEGIN/COMMIT text: begin switches autocommit
 * off, commit and rollback end the transaction and switch it on again.
 */
#include "odbc_int.h"

#include <stdint.h>

int odbc_set_autocommit(sbd_conn *c, int on)
{
    SQLRETURN rc = SQLSetConnectAttr(c->dbc, SQL_ATTR_AUTOCOMMIT,
                                     (SQLPOINTER)(uintptr_t)(on ? SQL_AUTOCOMMIT_ON
                                                                : SQL_AUTOCOMMIT_OFF),
                                     SQL_IS_UINTEGER);
    if (!SQL_SUCCEEDED(rc))
        return odbc_conn_diag(c, SQL_HANDLE_DBC, c->dbc, rc,
                         on ? "autocommit on" : "autocommit off");
    return SBD_OK;
}

int odbc_begin(sbd_conn *c)
{
    odbc_close_cursor(c);
    int st = odbc_set_autocommit(c, 0);
    if (st == SBD_OK)
        c->in_txn = 1;
    return st;
}

/* Ends the transaction with SQL_COMMIT or SQL_ROLLBACK and turns autocommit
 * back on.  A failed commit is rolled back before autocommit returns, so
 * that switching autocommit on cannot commit it. */
static int end_txn(sbd_conn *c, SQLSMALLINT how)
{
    odbc_close_cursor(c);
    SQLRETURN rc = SQLEndTran(SQL_HANDLE_DBC, c->dbc, how);
    int st = SBD_OK;
    if (!SQL_SUCCEEDED(rc)) {
        st = odbc_conn_diag(c, SQL_HANDLE_DBC, c->dbc, rc,
                       how == SQL_COMMIT ? "commit" : "rollback");
        if (how == SQL_COMMIT)
            SQLEndTran(SQL_HANDLE_DBC, c->dbc, SQL_ROLLBACK);
    }
    if (c->in_txn) {
        c->in_txn = 0;
        if (st == SBD_OK)
            st = odbc_set_autocommit(c, 1);
        else
            SQLSetConnectAttr(c->dbc, SQL_ATTR_AUTOCOMMIT,
                              (SQLPOINTER)(uintptr_t)SQL_AUTOCOMMIT_ON, SQL_IS_UINTEGER);
    }
    return st;
}

int odbc_commit(sbd_conn *c) { return end_txn(c, SQL_COMMIT); }

int odbc_rollback(sbd_conn *c) { return end_txn(c, SQL_ROLLBACK); }

