/work/main/userspace/check/tests/test_ctl.o: \
 /work/main/selftests/host/test_ctl.c \
 /work/main/userspace/include/nanograph.h \
 /work/main/selftests/host/ktap.h
/work/main/userspace/include/nanograph.h:
/work/main/selftests/host/ktap.h:
