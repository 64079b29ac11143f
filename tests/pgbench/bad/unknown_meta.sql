BEGIN;
\frobnicate 3
END;
