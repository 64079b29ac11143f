\set a 1

SELECT :a,
  :nowhere;
