/*
 * One of 100 short-lived processes: `shortlived N` burns about argv[2]
 * milliseconds (default 30) of CPU in the function burn_N, then exits, so
 * every sample of process N has a function name of its own.  Built static,
 * so that start-up (the dynamic loader) is a small part of its life.
 */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#define BURN(n)                                                  \
	__attribute__((noinline)) void burn_##n(double ms)      \
	{                                                        \
		double end = cpu_ms() + ms;                      \
		while (cpu_ms() < end)                           \
			for (int i = 0; i < 200000; i++)         \
				sink += (unsigned long)i * n;    \
	}

BURN(0)
BURN(1)
BURN(2)
BURN(3)
BURN(4)
BURN(5)
BURN(6)
BURN(7)
BURN(8)
BURN(9)
BURN(10)
BURN(11)
BURN(12)
BURN(13)
BURN(14)
BURN(15)
BURN(16)
BURN(17)
BURN(18)
BURN(19)
BURN(20)
BURN(21)
BURN(22)
BURN(23)
BURN(24)
BURN(25)
BURN(26)
BURN(27)
BURN(28)
BURN(29)
BURN(30)
BURN(31)
BURN(32)
BURN(33)
BURN(34)
BURN(35)
BURN(36)
BURN(37)
BURN(38)
BURN(39)
BURN(40)
BURN(41)
BURN(42)
BURN(43)
BURN(44)
BURN(45)
BURN(46)
BURN(47)
BURN(48)
BURN(49)
BURN(50)
BURN(51)
BURN(52)
BURN(53)
BURN(54)
BURN(55)
BURN(56)
BURN(57)
BURN(58)
BURN(59)
BURN(60)
BURN(61)
BURN(62)
BURN(63)
BURN(64)
BURN(65)
BURN(66)
BURN(67)
BURN(68)
BURN(69)
BURN(70)
BURN(71)
BURN(72)
BURN(73)
BURN(74)
BURN(75)
BURN(76)
BURN(77)
BURN(78)
BURN(79)
BURN(80)
BURN(81)
BURN(82)
BURN(83)
BURN(84)
BURN(85)
BURN(86)
BURN(87)
BURN(88)
BURN(89)
BURN(90)
BURN(91)
BURN(92)
BURN(93)
BURN(94)
BURN(95)
BURN(96)
BURN(97)
BURN(98)
BURN(99)

static void (*const burners[100])(double) = { burn_0, burn_1, burn_2, burn_3, burn_4, burn_5, burn_6, burn_7, burn_8, burn_9, burn_10, burn_11, burn_12, burn_13, burn_14, burn_15, burn_16, burn_17, burn_18, burn_19, burn_20, burn_21, burn_22, burn_23, burn_24, burn_25, burn_26, burn_27, burn_28, burn_29, burn_30, burn_31, burn_32, burn_33, burn_34, burn_35, burn_36, burn_37, burn_38, burn_39, burn_40, burn_41, burn_42, burn_43, burn_44, burn_45, burn_46, burn_47, burn_48, burn_49, burn_50, burn_51, burn_52, burn_53, burn_54, burn_55, burn_56, burn_57, burn_58, burn_59, burn_60, burn_61, burn_62, burn_63, burn_64, burn_65, burn_66, burn_67, burn_68, burn_69, burn_70, burn_71, burn_72, burn_73, burn_74, burn_75, burn_76, burn_77, burn_78, burn_79, burn_80, burn_81, burn_82, burn_83, burn_84, burn_85, burn_86, burn_87, burn_88, burn_89, burn_90, burn_91, burn_92, burn_93, burn_94, burn_95, burn_96, burn_97, burn_98, burn_99 };

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;

	if (n < 0 || n > 99)
		return 2;
	burners[n](argc > 2 ? atof(argv[2]) : 30.0);
	return 0;
}
