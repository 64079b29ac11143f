\set a random(1, 2, 3)
