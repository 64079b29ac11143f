\set a 1
SELECT 1;
\else
