\set a 1
\set b (1 + * 2)
SELECT :b;
