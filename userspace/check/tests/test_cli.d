/work/main/userspace/check/tests/test_cli.o: \
 /work/main/selftests/host/test_cli.c \
 /work/main/userspace/include/nanograph.h \
 /work/main/selftests/host/ktap.h
/work/main/userspace/include/nanograph.h:
/work/main/selftests/host/ktap.h:
