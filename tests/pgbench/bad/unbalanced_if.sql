\set a 1
\if :a = 1
SELECT 1;
