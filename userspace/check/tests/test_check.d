/work/main/userspace/check/tests/test_check.o: \
 /work/main/selftests/host/test_check.c \
 /work/main/userspace/include/nanograph.h \
 /work/main/selftests/host/ktap.h
/work/main/userspace/include/nanograph.h:
/work/main/selftests/host/ktap.h:
