-- The expression language: each \set evaluated by pgbench and by sbench,
-- its text stored; tests/integration/pgbench-expr.sh compares the rows.
\set x1 1 + 2 * 3
INSERT INTO expr_out VALUES (:client_id, 1, $$:x1$$);
\set x2 7 / 2
INSERT INTO expr_out VALUES (:client_id, 2, $$:x2$$);
\set x3 -7 / 2
INSERT INTO expr_out VALUES (:client_id, 3, $$:x3$$);
\set x4 7 / -2
INSERT INTO expr_out VALUES (:client_id, 4, $$:x4$$);
\set x5 -7 % 3
INSERT INTO expr_out VALUES (:client_id, 5, $$:x5$$);
\set x6 7 % -3
INSERT INTO expr_out VALUES (:client_id, 6, $$:x6$$);
\set x7 9223372036854775807 / -1
INSERT INTO expr_out VALUES (:client_id, 7, $$:x7$$);
\set x8 -9223372036854775808 % -1
INSERT INTO expr_out VALUES (:client_id, 8, $$:x8$$);
\set x9 -9223372036854775808
INSERT INTO expr_out VALUES (:client_id, 9, $$:x9$$);
\set x10 5 - 10
INSERT INTO expr_out VALUES (:client_id, 10, $$:x10$$);
\set x11 2 * 3.5
INSERT INTO expr_out VALUES (:client_id, 11, $$:x11$$);
\set x12 7.0 / 2
INSERT INTO expr_out VALUES (:client_id, 12, $$:x12$$);
\set x13 1 / 3.0
INSERT INTO expr_out VALUES (:client_id, 13, $$:x13$$);
\set x14 10 % 3 + 2
INSERT INTO expr_out VALUES (:client_id, 14, $$:x14$$);
\set x15 (1 + 2) * (3 - 4)
INSERT INTO expr_out VALUES (:client_id, 15, $$:x15$$);
\set x16 - 3 * 2
INSERT INTO expr_out VALUES (:client_id, 16, $$:x16$$);
\set x17 ~ 5
INSERT INTO expr_out VALUES (:client_id, 17, $$:x17$$);
\set x18 5 & 3
INSERT INTO expr_out VALUES (:client_id, 18, $$:x18$$);
\set x19 5 | 3
INSERT INTO expr_out VALUES (:client_id, 19, $$:x19$$);
\set x20 5 # 3
INSERT INTO expr_out VALUES (:client_id, 20, $$:x20$$);
\set x21 1 << 10
INSERT INTO expr_out VALUES (:client_id, 21, $$:x21$$);
\set x22 -16 >> 2
INSERT INTO expr_out VALUES (:client_id, 22, $$:x22$$);
\set x23 1 + 2 << 3
INSERT INTO expr_out VALUES (:client_id, 23, $$:x23$$);
\set x24 3 < 4
INSERT INTO expr_out VALUES (:client_id, 24, $$:x24$$);
\set x25 3 <= 3
INSERT INTO expr_out VALUES (:client_id, 25, $$:x25$$);
\set x26 4 > 5
INSERT INTO expr_out VALUES (:client_id, 26, $$:x26$$);
\set x27 4 >= 5
INSERT INTO expr_out VALUES (:client_id, 27, $$:x27$$);
\set x28 2 = 2.0
INSERT INTO expr_out VALUES (:client_id, 28, $$:x28$$);
\set x29 2 <> 3
INSERT INTO expr_out VALUES (:client_id, 29, $$:x29$$);
\set x30 2 != 2
INSERT INTO expr_out VALUES (:client_id, 30, $$:x30$$);
\set x31 1 < 2 AND 2 < 3
INSERT INTO expr_out VALUES (:client_id, 31, $$:x31$$);
\set x32 1 > 2 OR NOT 3 = 3
INSERT INTO expr_out VALUES (:client_id, 32, $$:x32$$);
\set x33 NOT true
INSERT INTO expr_out VALUES (:client_id, 33, $$:x33$$);
\set x34 true AND NULL
INSERT INTO expr_out VALUES (:client_id, 34, $$:x34$$);
\set x35 NULL IS NULL
INSERT INTO expr_out VALUES (:client_id, 35, $$:x35$$);
\set x36 1 IS NULL
INSERT INTO expr_out VALUES (:client_id, 36, $$:x36$$);
\set x37 2 ISNULL
INSERT INTO expr_out VALUES (:client_id, 37, $$:x37$$);
\set x38 2 NOTNULL
INSERT INTO expr_out VALUES (:client_id, 38, $$:x38$$);
\set x39 (1 = 1) IS TRUE
INSERT INTO expr_out VALUES (:client_id, 39, $$:x39$$);
\set x40 (1 = 2) IS NOT FALSE
INSERT INTO expr_out VALUES (:client_id, 40, $$:x40$$);
\set x41 NULL + 1
INSERT INTO expr_out VALUES (:client_id, 41, $$:x41$$);
\set x42 abs(-17)
INSERT INTO expr_out VALUES (:client_id, 42, $$:x42$$);
\set x43 abs(-2.5)
INSERT INTO expr_out VALUES (:client_id, 43, $$:x43$$);
\set x44 greatest(3, 7, 5)
INSERT INTO expr_out VALUES (:client_id, 44, $$:x44$$);
\set x45 greatest(3, 7.5, 5)
INSERT INTO expr_out VALUES (:client_id, 45, $$:x45$$);
\set x46 least(3, -2, 9)
INSERT INTO expr_out VALUES (:client_id, 46, $$:x46$$);
\set x47 least(1.5, 2)
INSERT INTO expr_out VALUES (:client_id, 47, $$:x47$$);
\set x48 int(5.9)
INSERT INTO expr_out VALUES (:client_id, 48, $$:x48$$);
\set x49 int(-5.9)
INSERT INTO expr_out VALUES (:client_id, 49, $$:x49$$);
\set x50 double(3)
INSERT INTO expr_out VALUES (:client_id, 50, $$:x50$$);
\set x51 sqrt(2.0)
INSERT INTO expr_out VALUES (:client_id, 51, $$:x51$$);
\set x52 pi()
INSERT INTO expr_out VALUES (:client_id, 52, $$:x52$$);
\set x53 pow(2, 10)
INSERT INTO expr_out VALUES (:client_id, 53, $$:x53$$);
\set x54 power(2.0, 0.5)
INSERT INTO expr_out VALUES (:client_id, 54, $$:x54$$);
\set x55 exp(1)
INSERT INTO expr_out VALUES (:client_id, 55, $$:x55$$);
\set x56 ln(10)
INSERT INTO expr_out VALUES (:client_id, 56, $$:x56$$);
\set x57 mod(-10, 3)
INSERT INTO expr_out VALUES (:client_id, 57, $$:x57$$);
\set x58 mod(10, -3)
INSERT INTO expr_out VALUES (:client_id, 58, $$:x58$$);
\set x59 hash(42)
INSERT INTO expr_out VALUES (:client_id, 59, $$:x59$$);
\set x60 hash(-1, 5)
INSERT INTO expr_out VALUES (:client_id, 60, $$:x60$$);
\set x61 hash_murmur2(123456789, 987654321)
INSERT INTO expr_out VALUES (:client_id, 61, $$:x61$$);
\set x62 hash_fnv1a(42)
INSERT INTO expr_out VALUES (:client_id, 62, $$:x62$$);
\set x63 hash_fnv1a(-9223372036854775808, 1)
INSERT INTO expr_out VALUES (:client_id, 63, $$:x63$$);
\set x64 hash_murmur2(0, 0)
INSERT INTO expr_out VALUES (:client_id, 64, $$:x64$$);
\set x65 permute(0, 10, 7)
INSERT INTO expr_out VALUES (:client_id, 65, $$:x65$$);
\set x66 permute(3, 10, 7)
INSERT INTO expr_out VALUES (:client_id, 66, $$:x66$$);
\set x67 permute(9, 10, 7)
INSERT INTO expr_out VALUES (:client_id, 67, $$:x67$$);
\set x68 permute(12345, 1000000, 42)
INSERT INTO expr_out VALUES (:client_id, 68, $$:x68$$);
\set x69 permute(-5, 97, 3)
INSERT INTO expr_out VALUES (:client_id, 69, $$:x69$$);
\set x70 permute(1, 2)
INSERT INTO expr_out VALUES (:client_id, 70, $$:x70$$);
\set x71 permute(5, 1000)
INSERT INTO expr_out VALUES (:client_id, 71, $$:x71$$);
\set x72 permute(123, 9223372036854775807, 11)
INSERT INTO expr_out VALUES (:client_id, 72, $$:x72$$);
\set x73 case when 1 > 2 then 10 when 2 > 1 then 20 else 30 end
INSERT INTO expr_out VALUES (:client_id, 73, $$:x73$$);
\set x74 case when false then 1 end
INSERT INTO expr_out VALUES (:client_id, 74, $$:x74$$);
\set x75 :scale * 100000
INSERT INTO expr_out VALUES (:client_id, 75, $$:x75$$);
\set x76 :random_seed
INSERT INTO expr_out VALUES (:client_id, 76, $$:x76$$);
\set x77 :default_seed
INSERT INTO expr_out VALUES (:client_id, 77, $$:x77$$);
\set x78 random(1, 100000)
INSERT INTO expr_out VALUES (:client_id, 78, $$:x78$$);
\set x79 random(-5000, 5000)
INSERT INTO expr_out VALUES (:client_id, 79, $$:x79$$);
\set x80 random(1, 10) + random(1, 10)
INSERT INTO expr_out VALUES (:client_id, 80, $$:x80$$);
\set x81 random_exponential(1, 1000, 2.5)
INSERT INTO expr_out VALUES (:client_id, 81, $$:x81$$);
\set x82 random_gaussian(1, 1000, 3.0)
INSERT INTO expr_out VALUES (:client_id, 82, $$:x82$$);
\set x83 random_zipfian(1, 1000, 1.5)
INSERT INTO expr_out VALUES (:client_id, 83, $$:x83$$);
\set x84 random_zipfian(1, 100, 2.0)
INSERT INTO expr_out VALUES (:client_id, 84, $$:x84$$);
\set x85 random(1, 9223372036854775806)
INSERT INTO expr_out VALUES (:client_id, 85, $$:x85$$);
\set x86 1.5e3 + 1
INSERT INTO expr_out VALUES (:client_id, 86, $$:x86$$);
\set x87 .5 * 4
INSERT INTO expr_out VALUES (:client_id, 87, $$:x87$$);
\set x88 3 * :k
INSERT INTO expr_out VALUES (:client_id, 88, $$:x88$$);
\set x89 :k / 2.0
INSERT INTO expr_out VALUES (:client_id, 89, $$:x89$$);
\set x90 :k * 0.1
INSERT INTO expr_out VALUES (:client_id, 90, $$:x90$$);
\set x91 1e300 * 10
INSERT INTO expr_out VALUES (:client_id, 91, $$:x91$$);
\set x92 0.1 + 0.2
INSERT INTO expr_out VALUES (:client_id, 92, $$:x92$$);
\set x93 1.0 / 3 * 3
INSERT INTO expr_out VALUES (:client_id, 93, $$:x93$$);
\set x94 5 IS TRUE
INSERT INTO expr_out VALUES (:client_id, 94, $$:x94$$);
\set x95 NULL IS TRUE
INSERT INTO expr_out VALUES (:client_id, 95, $$:x95$$);
\set x96 NULL IS NOT TRUE
INSERT INTO expr_out VALUES (:client_id, 96, $$:x96$$);
\set x97 NULL AND false
INSERT INTO expr_out VALUES (:client_id, 97, $$:x97$$);
\set x98 false AND NULL
INSERT INTO expr_out VALUES (:client_id, 98, $$:x98$$);
\set x99 NULL OR true
INSERT INTO expr_out VALUES (:client_id, 99, $$:x99$$);
\set x100 true OR NULL
INSERT INTO expr_out VALUES (:client_id, 100, $$:x100$$);
\set x101 false AND 5
INSERT INTO expr_out VALUES (:client_id, 101, $$:x101$$);
\set x102 true OR 5
INSERT INTO expr_out VALUES (:client_id, 102, $$:x102$$);
\set x103 NOT NULL
INSERT INTO expr_out VALUES (:client_id, 103, $$:x103$$);
\set x104 case when 1 then 2 end
INSERT INTO expr_out VALUES (:client_id, 104, $$:x104$$);
\set x105 case when NULL then 2 else 3 end
INSERT INTO expr_out VALUES (:client_id, 105, $$:x105$$);
\set x106 abs(-9223372036854775808)
INSERT INTO expr_out VALUES (:client_id, 106, $$:x106$$);
\set x107 1.0/0
INSERT INTO expr_out VALUES (:client_id, 107, $$:x107$$);
\set x108 hash(1.5)
INSERT INTO expr_out VALUES (:client_id, 108, $$:x108$$);
\set x109 1 << 64
INSERT INTO expr_out VALUES (:client_id, 109, $$:x109$$);
\set x110 1 << -1
INSERT INTO expr_out VALUES (:client_id, 110, $$:x110$$);
\set x111 -1 >> 70
INSERT INTO expr_out VALUES (:client_id, 111, $$:x111$$);
\set x112 1 << 63
INSERT INTO expr_out VALUES (:client_id, 112, $$:x112$$);
\set x113 -9223372036854775807 - 1
INSERT INTO expr_out VALUES (:client_id, 113, $$:x113$$);
\set x114 greatest(NULL, 1)
INSERT INTO expr_out VALUES (:client_id, 114, $$:x114$$);
\set x115 2.5 % 2
INSERT INTO expr_out VALUES (:client_id, 115, $$:x115$$);
